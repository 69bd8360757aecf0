package tmpl

import (
	"fmt"
	"strings"
	"testing"
	"text/template"
)

type tcase struct {
	name, text string
	opt        string // for Option, if any
}

var cases = []tcase{
	// Text, fields, pointers, embedding.
	{"text", "plain text", ""},
	{"empty", "", ""},
	{"fields", "{{.Model}} {{.Inner.Name}} {{.Inner.N}} {{.PInner.Name}} {{.Inner.Next.Name}}", ""},
	{"ptrfields", "{{.Cost}} {{.Left}} {{.NilCost}} {{.NilLeft}} {{.PP}} {{.Inner.P}}", ""},
	{"embedded", "{{.E}} {{.EI}} {{.Embedded.E}} {{.EP}}", ""},
	{"nilptr", "{{.NilInner.Name}}", ""},
	{"nilptrnofield", "{{.NilInner.Nope}}", ""},
	{"nofield", "{{.Nope}}", ""},
	{"unexported", "{{.unexp}}", ""},
	{"fieldargs", "{{.Model 1}}", ""},
	{"print kinds", "{{.U8}} {{.I8}} {{.U}} {{.I64}} {{.F32}} {{.F}} {{.C}} {{.B}} {{.Named}} {{.Bytes}} {{.Arr}} {{.Ints}}", ""},
	{"print composites", "{{.M}} {{.MI}} {{.MF}} {{.Inner}} {{.Limits}} {{.AnySlice}} {{.Any}}", ""},
	{"print func", "{{.Fn}}", ""},
	{"print nilfunc", "{{.NilFn}}", ""},
	{"dot", "{{.Inner.N}}{{with .Inner}}{{.}}{{end}}", ""},
	{"root", "{{with .Inner}}{{$.Model}}{{end}}", ""},
	// Maps.
	{"map", "{{.M.a}} {{.M.b}} {{.M.c}} {{.M.zz}} {{.M.e.f}} {{.MS.y}}", ""},
	{"map zero", "{{.M.zz}} {{.MS.nope}} {{.M.e.nope}}", "missingkey=zero"},
	{"map error", "{{.MS.x}} {{.MS.nope}}", "missingkey=error"},
	{"map error nil", "{{.M.c}}", "missingkey=error"},
	{"map invalid", "{{.MS.nope}}", "missingkey=invalid"},
	{"map nil", "{{.NilMap.x}}", ""},
	{"map intkey", "{{.MI.x}}", ""},
	{"map chain missing", "{{.M.nope.deeper}}", ""},
	{"map chain missing err", "{{.M.nope.deeper}}", "missingkey=error"},
	{"map args", "{{.M.a 1}}", ""},
	// Conditionals.
	{"if", "{{if .B}}yes{{end}}{{if .Zero}}no{{else}}zero{{end}}", ""},
	{"if else if", "{{if .Zero}}a{{else if .NilCost}}b{{else if .Left}}c{{else}}d{{end}}", ""},
	{"if truth", "{{if .Ints}}1{{end}}{{if .NoLimits}}2{{end}}{{if .NilInner}}3{{end}}{{if .Inner}}4{{end}}{{if .M}}5{{end}}{{if .NilMap}}6{{end}}{{if .Any}}7{{end}}{{if .AnyInt}}8{{end}}{{if .C}}9{{end}}{{if .Named}}a{{end}}{{if .Fn}}b{{end}}{{if .NilFn}}c{{end}}{{if .Ch}}d{{end}}", ""},
	{"with", "{{with .Left}}{{.}}% left{{end}}{{with .NilLeft}}x{{else}}none{{end}}", ""},
	{"else with", "{{with .NilCost}}a{{else with .Cost}}{{.}}{{else}}c{{end}}", ""},
	{"with var", "{{with $x := .Inner}}{{$x.Name}}{{.N}}{{end}}", ""},
	{"if var scope", "{{$x := 1}}{{if true}}{{$x := 2}}{{$x}}{{end}}{{$x}}", ""},
	{"assign", "{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}", ""},
	{"assign undefined", "{{$x := 1}}{{$x}}", ""},
	// Range.
	{"range slice", "{{range .Limits}} · {{.Window}} {{pct .UsedPct}}{{end}}", ""},
	{"range vars", "{{range $i, $l := .Limits}}{{$i}}={{$l.Window}};{{end}}", ""},
	{"range one var", "{{range $l := .Strs}}{{$l}}{{.}}{{end}}", ""},
	{"range map", "{{range $k, $v := .MI}}{{$k}}:{{$v}} {{end}}{{range .MS}}{{.}}{{end}}", ""},
	{"range map keys", "{{range $k, $v := .MF}}{{$k}}={{$v}} {{end}}{{range $k, $v := .MB}}{{$k}}={{$v}} {{end}}{{range $k, $v := .MU}}{{$k}}={{$v}} {{end}}", ""},
	{"range int", "{{range 3}}{{.}}{{end}}{{range $i := 4}}{{$i}}{{end}}{{range .U8}}{{end}}{{range 0}}x{{else}}none{{end}}", ""},
	{"range int two vars", "{{range $i, $v := 3}}{{end}}", ""},
	{"range negative", "{{range -2}}x{{else}}neg{{end}}", ""},
	{"range else", "{{range .NoLimits}}x{{else}}no limits{{end}}{{range .NilMap}}x{{else}}nil map{{end}}", ""},
	{"range nil", "{{range .Any}}x{{else}}nil{{end}}", ""},
	{"range array", "{{range $i, $v := .Arr}}{{$i}}{{$v}}{{end}}", ""},
	{"range string", "{{range .Model}}{{.}}{{end}}", ""},
	{"range chan", "{{range .Ch}}{{.}}{{end}}", ""},
	{"range break", "{{range .Ints}}{{if eq . 1}}{{break}}{{end}}{{.}}{{end}}", ""},
	{"range continue", "{{range .Ints}}{{if eq . 1}}{{continue}}{{end}}{{.}}{{end}}", ""},
	{"range nested break", "{{range .Matrix}}[{{range .}}{{if eq . 2}}{{break}}{{end}}{{.}}{{end}}]{{end}}", ""},
	{"range else break", "{{range .Ints}}{{range $.NoLimits}}{{else}}{{break}}{{end}}{{.}}{{end}}", ""},
	{"range else continue", "{{range .Ints}}{{range $.NoLimits}}{{else}}{{continue}}{{end}}{{.}}{{end}}", ""},
	{"range assign", "{{$v := 0}}{{range $v = .Ints}}{{end}}{{$v}}", ""},
	{"range assign two", "{{$i := 0}}{{$v := 0}}{{range $i, $v = .Strs}}{{end}}{{$i}}{{$v}}", ""},
	{"range ptr slice", "{{range .PLimits}}{{.}}|{{end}}", ""},
	{"range var scope", "{{range $i, $v := .Ints}}{{$x := $i}}{{end}}{{$x}}", ""},
	{"range any slice", "{{range .AnySlice}}{{.}},{{end}}", ""},
	{"range seq", "{{range .Seq}}{{.}}{{if eq . 2}}{{break}}{{end}}{{end}} {{range $k, $v := .Seq2}}{{$k}}{{$v}}{{end}} {{range .Seq2}}{{.}}{{end}}", ""},
	{"range seq two vars", "{{range $i, $v := .Seq}}{{end}}", ""},
	{"with assign", "{{$x := 0}}{{with $y := 1}}{{$x = $y}}{{end}}{{$x}}", ""},
	{"range struct", "{{range .Inner}}{{end}}", ""},
	// Pipelines, functions, constants.
	{"pipeline", "{{.Cost | usd}} {{.Inner.N | add 1}} {{3 | add 4 | add 5}}", ""},
	{"func ptr arg", "{{usd .Cost}} {{deref .Left}} {{val .Left}}", ""},
	{"func nil ptr arg", "{{usd .NilCost}}", ""},
	{"func consts", "{{i64 3}} {{u 3}} {{f32 3}} {{f32 1.5}} {{add 1 2}}", ""},
	{"func const mismatch", "{{add 1.5 2}}", ""},
	{"func uint neg", "{{u -1}}", ""},
	{"func mixed kinds", "{{add .U8 1}}", ""},
	{"func error", "{{fail true}} {{fail false}}", ""},
	{"func panic", "a{{boom}}b", ""},
	{"func variadic", "{{join \",\"}}|{{join \",\" \"a\"}}|{{join \"-\" \"a\" \"b\"}}|{{\"z\" | join \"+\" \"y\"}}", ""},
	{"func wrong args", "{{add 1}}", ""},
	{"func too many", "{{add 1 2 3}}", ""},
	{"func any", "{{desc 1}} {{desc 1.5}} {{desc \"s\"}} {{desc .Left}} {{desc nil}} {{desc .Any}} {{desc true}} {{desc 'a'}} {{desc 0x10}} {{desc 1e3}}", ""},
	{"func struct arg", "{{inner .Inner}} {{pin .PInner}} {{inner .PInner}}", ""},
	{"func addr arg", "{{pin .Inner}}", ""},
	{"func named", "{{named .Named}} {{named \"lit\"}} {{named .Model}}", ""},
	{"func nil arg", "{{pin nil}}", ""},
	{"func nil to int", "{{val nil}}", ""},
	{"func bool const", "{{val true}}", ""},
	{"func result field", "{{(mkmap).k}} {{(list 1 2) | len}}", ""},
	{"func two", "{{two \"a\" 1}} {{1 | two \"b\"}}", ""},
	{"func nilp", "{{nilp}} {{if nilp}}x{{else}}nil{{end}}", ""},
	{"unknown func", "{{nope 1}}", ""},
	{"number constants", "{{1}} {{1.5}} {{1e3}} {{0x1F}} {{'a'}} {{1i}} {{-7}} {{0b101}} {{0o17}} {{1_000}}", ""},
	{"overflow", "{{18446744073709551615}}", ""},
	{"strings", "{{\"a\\tb\"}} {{`raw`}}", ""},
	{"nil command", "{{nil}}", ""},
	{"bools", "{{true}} {{false}}", ""},
	{"parens", "{{(add 1 2)}} {{(.Inner).Name}} {{(index .Limits 0).Window}}", ""},
	{"chain missing", "{{(.M).zz.y}}", ""},
	{"chain nil", "{{(nilp).X}}", ""},
	{"var chain", "{{$l := index .Limits 1}}{{$l.Window}} {{$.Inner.Next.Name}}", ""},
	{"var args", "{{$x := 1}}{{$x 2}}", ""},
	{"dot args", "{{. 1}}", ""},
	// Builtins.
	{"and or", "{{and 1 0 2}} {{and 1 2}} {{or 0 \"\" 3}} {{or 0 \"\"}} {{and .NilCost .Boom}} {{or .Left .Boom}} {{and}}", ""},
	{"and short", "{{and false (boom)}} {{or true (boom)}}", ""},
	{"and pipe", "{{1 | and 2}} {{0 | or false}} {{\"x\" | and 0}}", ""},
	{"and nil", "{{and nil 1}}|{{or nil}}", ""},
	{"not", "{{not 0}} {{not 1}} {{not .Ints}} {{not .NilInner}} {{not nil}}", ""},
	{"len", "{{len .Ints}} {{len .M}} {{len .Model}} {{len .Arr}} {{len .PInner.Tags}} {{len .Ch}}", ""},
	{"len bad", "{{len 3}}", ""},
	{"len nil", "{{len .NilInner}}", ""},
	{"len untyped nil", "{{len nil}}", ""},
	{"index", "{{index .Ints 0}} {{index .Matrix 0 1}} {{index .M \"b\"}} {{index .MI 2}} {{index .MS \"nope\"}} {{index .Model 0}} {{index .Arr 2}} {{index .MU 2}}", ""},
	{"index out", "{{index .Ints 3}}", ""},
	{"index neg", "{{index .Ints -1}}", ""},
	{"index bad key", "{{index .MI \"x\"}}", ""},
	{"index nil", "{{index nil 1}}", ""},
	{"index nilptr", "{{index .NilInner 1}}", ""},
	{"index nil key", "{{index .M nil}}", ""},
	{"index uint", "{{index .Ints .U8}}", ""},
	{"index noargs", "{{index .Ints}}", ""},
	{"slice", "{{slice .Ints 1}} {{slice .Ints 1 2}} {{slice .Ints 0 1 2}} {{slice .Model 1 3}} {{slice .Ints}}", ""},
	{"slice bad", "{{slice .Ints 2 1}}", ""},
	{"slice 3 string", "{{slice .Model 1 2 3}}", ""},
	{"slice array", "{{slice .Arr 1}}", ""},
	{"print", "{{print 1 2 \"a\" \"b\" .Left}}|{{println 1 \"x\"}}|{{printf \"%05.1f|%q|%v|%d|%x\" .F .Model .Ints .U8 \"hi\"}}", ""},
	{"printf ptr", "{{printf \"%v %d\" .Left .Inner.N}}", ""},
	{"printf pipe", "{{.F | printf \"%.3f\"}} {{printf \"%s\" .Named}}", ""},
	{"printf bad format", "{{printf .Named}}", ""},
	{"printf noargs", "{{printf}}", ""},
	{"print nil", "{{print nil}} {{print .Any}}", ""},
	{"eq", "{{eq 1 1}} {{eq 1 2}} {{eq .U8 200}} {{eq .I8 -3}} {{eq .U 7}} {{eq 1 2 3 1}} {{eq \"a\" \"a\"}} {{eq .Model \"Opus 4.1\"}} {{eq .F 2.25}} {{eq .B true}}", ""},
	{"eq mixed int", "{{eq .U8 .I8}} {{eq .U .AnyInt}} {{eq .I64 .U}} {{eq -1 .U}} {{eq .U -1}}", ""},
	{"eq incompatible", "{{eq 1 \"a\"}}", ""},
	{"eq float int", "{{eq 1.0 1}}", ""},
	{"eq nil", "{{eq .NilInner nil}} {{eq .Any nil}} {{eq nil nil}} {{eq .PInner nil}} {{eq .NilMap nil}}", ""},
	{"eq structs", "{{eq .Inner .Inner}}", ""},
	{"eq complex", "{{eq .C .C}}", ""},
	{"eq noarg", "{{eq 1}}", ""},
	{"eq slices", "{{eq .Ints .Ints}}", ""},
	{"ne", "{{ne 1 2}} {{ne \"a\" \"a\"}} {{ne .U8 200}}", ""},
	{"lt etc", "{{lt 1 2}} {{le 2 2}} {{gt 3 2}} {{ge 1 2}} {{lt .I8 .U}} {{lt .U .I8}} {{gt .U8 -1}} {{lt \"a\" \"b\"}} {{lt 1.5 2.5}} {{le .F .F}}", ""},
	{"lt bool", "{{lt true false}}", ""},
	{"lt mixed", "{{lt 1 1.5}}", ""},
	{"lt nil", "{{lt nil 1}}", ""},
	{"lt struct", "{{lt .Inner .Inner}}", ""},
	{"html js urlquery", "{{html \"<a href='x'>&\\\"\\x00\"}} {{js \"a'b\\\"c<d>=&\\n\\u2028é\"}} {{urlquery \"a b&c=d/é~\"}} {{html .Left}} {{urlquery 1 2}}", ""},
	{"call", "{{call .Fn 3}} {{3 | call .Fn}} {{call .NilFn}}", ""},
	{"call nonfunc", "{{call .Model}}", ""},
	{"call wrong", "{{call .Fn}}", ""},
	{"call nil", "{{call nil}}", ""},
	{"call convert", "{{call .Fn .U8}}", ""},
	// Named templates.
	{"define", `{{define "x"}}[{{.}}]{{end}}{{template "x" .Model}}{{template "x"}}{{template "x" 3}}`, ""},
	{"block", `{{block "b" .Inner}}{{.Name}}{{end}}-{{template "b" .PInner}}`, ""},
	{"template vars", `{{define "v"}}{{$}}{{end}}{{$x := 1}}{{template "v" .Inner.N}}`, ""},
	{"template no vars", `{{define "v"}}{{$x}}{{end}}{{$x := 1}}{{template "v"}}`, ""},
	{"template undefined", `{{template "nope"}}`, ""},
	{"template recursive", `{{define "r"}}{{if .}}{{len .}}{{template "r" slice . 1}}{{end}}{{end}}{{template "r" .Ints}}`, ""},
	{"template infinite", `{{define "r"}}{{template "r"}}{{end}}{{template "r"}}`, ""},
	{"comment", "a{{/* c */}}b{{- /* trim */ -}} c", ""},
	{"trim", "a  {{- 1 -}}  b", ""},
	{"status line", `{{.Model}}{{with .Left}} · {{.}}% context left{{end}}{{with .Cost}} · {{usd .}}{{end}}{{range .Limits}} · {{.Window}} {{pct .UsedPct}}{{end}}`, ""},
	// Errors.
	{"parse error", "{{if}}", ""},
	{"parse unclosed", "{{range .Ints}}", ""},
	{"break outside", "{{break}}", ""},
	{"bad number", "{{1x}}", ""},
	{"if func", "{{if .Fn}}fn{{end}}", ""},
	{"print chan", "{{.Ch}}", ""},
	{"send chan", "{{range .Ch}}{{end}}", ""},
	{"nil data field", "{{.Any.X}}", ""},
	{"nil data field error", "{{.Any.X}}", "missingkey=error"},
	{"field on int", "{{.Zero.X}}", ""},
	{"field on ptr ptr", "{{.PP.X}}", ""},
	{"field of nil embedded", "{{.EP}}", ""},
	{"multiline error", "line1\n{{.Inner.Nope}}", ""},
}

// execBoth runs tc with text/template and tmpl, each on data of its own
// from mk (ranging over a channel drains it).
func execBoth(tc tcase, mk func() any) (want, got string, wantErr, gotErr error, parsedStd bool) {
	std := template.New(tc.name).Funcs(testFuncs())
	ours := New(tc.name).Funcs(testFuncs())
	if tc.opt != "" {
		std.Option(tc.opt)
		ours.Option(tc.opt)
	}
	var sb, ob strings.Builder
	_, wantErr = std.Parse(tc.text)
	if wantErr == nil {
		parsedStd = true
		wantErr = std.Execute(&sb, mk())
	}
	_, gotErr = ours.Parse(tc.text)
	if gotErr == nil {
		gotErr = ours.Execute(&ob, mk())
	}
	return sb.String(), ob.String(), wantErr, gotErr, parsedStd
}

// TestDifferential runs every case on the data behind a pointer (fields
// addressable) and as a value (not: pointer arguments and Stringers on
// pointers then differ), and a few on other roots.
func TestDifferential(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := testData()
			if tc.name == "field of nil embedded" {
				d.EmbeddedPtr = nil
			}
			compare(t, tc, func() any { d.Ch = newChan(); return d })
			compare(t, tc, func() any { d.Ch = newChan(); return *d })
		})
	}
	roots := map[string]any{
		"nil":   nil,
		"map":   map[string]any{"a": 1, "b": map[string]int{"c": 2}, "n": nil},
		"slice": []int{1, 2},
		"int":   3,
		"ptr":   ptr(ptr(4)),
		"ambiguous": struct {
			Embedded
			Other
		}{Embedded{E: "1"}, Other{E: "2"}},
	}
	for _, text := range []string{
		"{{.}}", "{{.a}}", "{{.b.c}}", "{{.b.x}}", "{{.n}}", "{{.n.x}}", "{{range .}}{{.}}{{end}}",
		"{{len .}}", "{{index . 0}}", "{{.E}}", "{{$}}", "{{with .}}y{{else}}n{{end}}",
	} {
		for name, root := range roots {
			for _, opt := range []string{"", "missingkey=zero", "missingkey=error"} {
				compare(t, tcase{name: name, text: text, opt: opt}, func() any { return root })
			}
		}
	}
}

type Other struct{ E string }

func compare(t *testing.T, tc tcase, mk func() any) {
	t.Helper()
	want, got, wantErr, gotErr, _ := execBoth(tc, mk)
	switch {
	case wantErr != nil && gotErr == nil:
		t.Errorf("%s (%T, %s)\ntext/template: %v\ntmpl succeeded: %q", tc.text, mk(), tc.opt, wantErr, got)
	case wantErr == nil && gotErr != nil:
		t.Errorf("%s (%T, %s)\ntext/template: %q\ntmpl: %v", tc.text, mk(), tc.opt, want, gotErr)
	case want != got:
		t.Errorf("%s (%T, %s)\ntext/template: %q\ntmpl:          %q", tc.text, mk(), tc.opt, want, got)
	case wantErr != nil && wantErr.Error() != gotErr.Error():
		t.Logf("messages differ:\ntext/template: %v\ntmpl:          %v", wantErr, gotErr)
	}
	if strings.Contains(fmt.Sprint(gotErr), "internal error") {
		t.Errorf("tmpl: %v", gotErr)
	}
}
