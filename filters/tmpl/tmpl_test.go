package tmpl

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"text/template"
)

func run(t *testing.T, tm *Template, text string, dat any) (string, error) {
	t.Helper()
	if _, err := tm.Parse(text); err != nil {
		return "", err
	}
	var b strings.Builder
	err := tm.Execute(&b, dat)
	return b.String(), err
}

// line has computed fields, as ag-hook's status line data does.
type line struct {
	Model   string
	waiting []string
	calls   int
}

func (l *line) TemplateField(name string) (any, bool) {
	switch name {
	case "Waiting":
		l.calls++
		return len(l.waiting), true
	case "Others":
		return l.waiting, true
	case "Model": // shadows the field, as a method would
		return "computed " + l.Model, true
	case "Nil":
		return nil, true
	case "Panic":
		panic("field panic")
	}
	return nil, false
}

// valueFielder implements Fielder on the value.
type valueFielder struct{ N int }

func (v valueFielder) TemplateField(name string) (any, bool) {
	if name == "Double" {
		return v.N * 2, true
	}
	return nil, false
}

func TestFielder(t *testing.T) {
	l := &line{Model: "m", waiting: []string{"a", "b"}}
	for _, tc := range []struct{ text, want string }{
		{"{{.Waiting}}", "2"},
		{"{{with .Waiting}}{{.}} waiting{{end}}", "2 waiting"},
		{"{{range .Others}}{{.}}{{end}}", "ab"},
		{"{{len .Others}}", "2"},
		{"{{.Model}}", "computed m"},
		{"{{.Nil}}", "<no value>"},
		{"{{if eq .Waiting 2}}two{{end}}", "two"},
	} {
		got, err := run(t, New("f"), tc.text, l)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.text, got, err, tc.want)
		}
	}
	// A pointer-receiver Fielder is found on values that are not
	// addressable, too: in a map, in a slice of values.
	m := map[string]any{"L": *l}
	if got, err := run(t, New("f"), "{{.L.Waiting}}", m); got != "2" || err != nil {
		t.Errorf("map element: %q, %v", got, err)
	}
	if got, err := run(t, New("f"), "{{range .}}{{.Waiting}}{{end}}", []line{*l, {}}); got != "20" || err != nil {
		t.Errorf("slice element: %q, %v", got, err)
	}
	vf := struct{ V valueFielder }{valueFielder{N: 4}}
	if got, err := run(t, New("f"), "{{.V.Double}} {{.V.N}}", vf); got != "8 4" || err != nil {
		t.Errorf("value Fielder: %q, %v", got, err)
	}
	// Unknown names fall through to fields, then fail as text/template does.
	if _, err := run(t, New("f"), "{{.Nope}}", l); err == nil || !strings.Contains(err.Error(), "no field .Nope; the fields are .Model") {
		t.Errorf("unknown field: %v", err)
	}
	if _, err := run(t, New("f"), "{{.Panic}}", l); err == nil || !strings.Contains(err.Error(), "field panic") {
		t.Errorf("panicking field: %v", err)
	}
	if _, err := run(t, New("f"), "{{.Waiting 1}}", l); err == nil {
		t.Error("field with arguments: no error")
	}
}

// Methods are the deliberate difference: text/template calls them, tmpl
// does not see them.
type withMethod struct{ N int }

func (w withMethod) Double() int { return w.N * 2 }

func TestNoMethods(t *testing.T) {
	text := "{{.Double}}"
	var b strings.Builder
	if err := template.Must(template.New("m").Parse(text)).Execute(&b, withMethod{2}); err != nil || b.String() != "4" {
		t.Fatalf("text/template: %q, %v", b.String(), err)
	}
	_, err := run(t, New("m"), text, withMethod{2})
	if err == nil || !strings.Contains(err.Error(), "no field .Double; the fields are .N") {
		t.Fatalf("tmpl: %v", err)
	}
}

type celsius float64

func (c celsius) String() string { return fmt.Sprintf("%.1f°C", float64(c)) }

type ptrStringer struct{ N int }

func (p *ptrStringer) String() string { return fmt.Sprintf("ptr%d", p.N) }

type printing struct {
	Temp  celsius
	PTemp *celsius
	PS    ptrStringer
	PPS   *ptrStringer
	Err   error
	NoErr error
}

// Stringers and errors print through fmt, as in text/template (which
// does not call methods for that either: fmt does).
func TestPrintingStringers(t *testing.T) {
	c := celsius(21.5)
	dat := &printing{Temp: c, PTemp: &c, PS: ptrStringer{1}, PPS: &ptrStringer{2}, Err: errors.New("bad")}
	for _, text := range []string{
		"{{.Temp}} {{.PTemp}} {{.PS}} {{.PPS}} {{.Err}} {{.NoErr}}",
		"{{print .Temp .PS}} {{printf \"%v|%s\" .Temp .PPS}} {{html .PS}}",
		"{{with .PS}}{{.}}{{end}} {{range $k, $v := .}}{{end}}",
		"{{$x := .PS}}{{$x}}",
	} {
		tc := tcase{name: "stringers", text: text}
		want, got, wantErr, gotErr, _ := execBoth(tc, func() any { return dat })
		if (wantErr == nil) != (gotErr == nil) || want != got {
			t.Errorf("%s\ntext/template: %q, %v\ntmpl:          %q, %v", text, want, wantErr, got, gotErr)
		}
	}
}

func TestErrors(t *testing.T) {
	d := testData()
	_, err := run(t, New("e").Funcs(testFuncs()), "a\nb {{fail false}}", d)
	if !errors.Is(err, errFail) {
		t.Errorf("function error not wrapped: %v", err)
	}
	want := `template: e:2:4: executing "e" at <fail false>: error calling fail: failed on purpose`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if err := New("x").Execute(&strings.Builder{}, nil); err == nil || err.Error() != `template: x: "x" is an incomplete or empty template` {
		t.Errorf("unparsed: %v", err)
	}
	if _, err := New("p").Parse("{{nope}}"); err == nil || err.Error() != `template: p:1: function "nope" not defined` {
		t.Errorf("unknown function: %v", err)
	}
	// A writer's error comes back as it is.
	tm := Must(New("w").Parse("text"))
	if err := tm.Execute(failWriter{}, nil); err != errWrite {
		t.Errorf("write error: %v", err)
	}
}

var errWrite = errors.New("write failed")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestParseAgain(t *testing.T) {
	tm := Must(New("main").Parse(`{{define "a"}}A{{end}}[{{template "a"}}]`))
	// Only definitions: the main body stays.
	Must(tm.Parse(`{{define "a"}}B{{end}}`))
	var b strings.Builder
	if err := tm.Execute(&b, nil); err != nil || b.String() != "[B]" {
		t.Errorf("got %q, %v", b.String(), err)
	}
	Must(tm.Parse(`new {{template "a"}}`))
	b.Reset()
	if err := tm.Execute(&b, nil); err != nil || b.String() != "new B" {
		t.Errorf("got %q, %v", b.String(), err)
	}
}

func TestPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	mustPanic("option", func() { New("x").Option("nope") })
	mustPanic("empty option", func() { New("x").Option("") })
	mustPanic("func name", func() { New("x").Funcs(FuncMap{"a-b": fmt.Sprint}) })
	mustPanic("not a func", func() { New("x").Funcs(FuncMap{"a": 1}) })
	mustPanic("results", func() { New("x").Funcs(FuncMap{"a": func() (int, int) { return 0, 0 }}) })
	mustPanic("must", func() { Must(New("x").Parse("{{")) })
}

func TestConcurrentExecute(t *testing.T) {
	tm := Must(New("c").Funcs(testFuncs()).Parse(statusLine))
	d := testData()
	var want strings.Builder
	if err := tm.Execute(&want, d); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				var b strings.Builder
				if err := tm.Execute(&b, d); err != nil || b.String() != want.String() {
					t.Errorf("got %q, %v", b.String(), err)
					return
				}
			}
		})
	}
	wg.Wait()
}

type aliased struct {
	Inner
	ToolID string `json:"tool_id"`
	Hidden []byte `json:"-"`
}

type Inner struct {
	Agent  string `json:"agent"`
	Status string
}

// TestFieldAliases: a field is found by its Go name, its JSON name or its
// name in another case; an unknown one is named with the fields there are,
// and CheckFields finds it before there is any data.
func TestFieldAliases(t *testing.T) {
	d := aliased{Inner: Inner{Agent: "claude", Status: "waiting"}, ToolID: "t1"}
	for _, text := range []string{"{{.Agent}} {{.Status}} {{.ToolID}}", "{{.agent}} {{.status}} {{.tool_id}}"} {
		tp, err := New("f").Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := tp.Execute(&b, d); err != nil || b.String() != "claude waiting t1" {
			t.Errorf("%s = %q, %v", text, b.String(), err)
		}
		if err := tp.CheckFields(aliased{}); err != nil {
			t.Errorf("CheckFields(%s) = %v", text, err)
		}
	}
	tp, _ := New("f").Parse("{{if .Agent}}{{.Nope}}{{end}}{{range .Hidden}}{{.Whatever}}{{end}}")
	want := "no field .Nope; the fields are .Agent .Status .ToolID (their JSON names, such as .agent, work too)"
	if err := tp.CheckFields(aliased{}); err == nil || err.Error() != want {
		t.Errorf("CheckFields = %v; want %q", err, want)
	}
	var b strings.Builder
	if err := tp.Execute(&b, d); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Execute = %v; want %q", err, want)
	}
}
