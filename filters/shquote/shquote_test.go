package shquote

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

var kinds = map[string]Kind{"prompt": Quoted, "path": Quoted, "id": Quoted, "bin": Inert}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, tmpl, why string
	}{
		{"unquoted prompt", "{bin} {prompt}", "{prompt} is not inside single quotes"},
		{"double-quoted word", `sh -c "{bin} '{prompt}'"`, "double quote refused"},
		{"double quote after", `{bin} '{prompt}' "x"`, "double quote refused"},
		{"backtick", "{bin} `id` '{prompt}'", "backtick refused"},
		{"command substitution", "{bin} $(id) '{prompt}'", "$( refused"},
		{"arithmetic", "{bin} $((1)) '{prompt}'", "$( refused"},
		{"backslash desync", `{bin} '{prompt}' \{prompt}`, "backslash refused"},
		{"ansi-c quoting", `{bin} $'{prompt}'`, "$' refused"},
		{"unbalanced", `{bin} '{prompt}`, "never closed"},
		{"unbalanced later", `{bin} '{prompt}' '`, "never closed"},
		{"inert quoted", `'{bin}' '{prompt}'`, "{bin} must not be inside quotes"},
		{"missing required", `{bin} --help`, "{prompt} is required"},
		{"NUL", "{bin}\x00'{prompt}'", "NUL byte"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.tmpl, kinds, "prompt")
			if err == nil || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("Parse(%q) = %v; want error containing %q", tc.tmpl, err, tc.why)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name, tmpl string
		vals       map[string]string
		want       string
	}{
		{"claude prompt", "{bin} '{prompt}'", map[string]string{"bin": "claude", "prompt": "it's"}, `claude 'it'\''s'`},
		{"every occurrence", "{bin} '{prompt}' '{prompt}'", map[string]string{"bin": "x", "prompt": "a"}, "x 'a' 'a'"},
		{"replacement metachars stay literal", "{bin} '{prompt}'", map[string]string{"bin": "claude", "prompt": "$`; touch ./PWNED; #$&$'$$"}, "claude '$`; touch ./PWNED; #$&$'\\''$$'"},
		{"placeholder text in value is not re-expanded", "{bin} '{prompt}' '{path}'", map[string]string{"bin": "x", "prompt": "{path}", "path": "/p"}, "x '{path}' '/p'"},
		{"unknown braces literal", "{bin} '{prompt}' {x}", map[string]string{"bin": "x", "prompt": "p"}, "x 'p' {x}"},
		{"double quote inside single quotes is literal", `{bin} '"{prompt}"'`, map[string]string{"bin": "x", "prompt": "p"}, `x '"p"'`},
		{"fork", "{bin} --resume '{path}' --fork-session", map[string]string{"bin": "claude", "path": "/h/a b.jsonl"}, "claude --resume '/h/a b.jsonl' --fork-session"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := Parse(tc.tmpl, kinds)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tp.Expand(tc.vals)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Expand = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestExpandRefuses(t *testing.T) {
	tp, err := Parse("{bin} '{prompt}'", kinds)
	if err != nil {
		t.Fatal(err)
	}
	for _, vals := range []map[string]string{
		{"bin": "claude"},
		{"bin": "claude", "prompt": "a\x00b"},
		{"bin": "claude", "prompt": "\xff"},
		{"bin": "-x", "prompt": "p"},
		{"bin": "a  b", "prompt": "p"},
		{"bin": "a;b", "prompt": "p"},
		{"bin": "a b;", "prompt": "p"},
		{"bin": "X=1", "prompt": "p"},
		{"bin": "$(id)", "prompt": "p"},
		{"bin": "", "prompt": "p"},
		{"bin": strings.Repeat("a", MaxWord+1), "prompt": "p"},
	} {
		if got, err := tp.Expand(vals); err == nil {
			t.Errorf("Expand(%q) = %q; want an error", vals, got)
		}
	}
}

func TestCheckWord(t *testing.T) {
	for _, ok := range []string{"opus", "claude-opus-4-1", "anthropic/claude:high", "gpt-5.1", "/usr/local/bin/claude", "a_b"} {
		if err := CheckWord(ok); err != nil {
			t.Errorf("CheckWord(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-m", "--model", "a b", "a;b", "a|b", "$x", "a*", "~", "a=b", "a'b", `a"b`, "a\nb", "é"} {
		if err := CheckWord(bad); err == nil {
			t.Errorf("CheckWord(%q) = nil; want error", bad)
		}
	}
}

// hostile prompts every shell test feeds through the real shells.
var hostile = []string{
	"",
	"plain words",
	"it's",
	"'",
	"''",
	`'\''`,
	"$(touch PWNED)",
	"`touch PWNED`",
	"'; touch PWNED; '",
	"'$(touch PWNED)'",
	"$'\\'; touch PWNED; #'",
	"$`; touch PWNED; #",
	"$&$'$$",
	`\`,
	`\'; touch PWNED; \'`,
	"a\nb",
	"line1\n'; touch PWNED\n'",
	"\r\t\v\f",
	"${PATH:=x}$(touch PWNED)",
	"!! !$ ^a^b",
	"{prompt}",
	"\"; touch PWNED; \"",
	"日本語 ✓",
}

// shells are the real shells on this machine to check against: dash (sh)
// and bash read quotes differently in the corners ($'…' is bash's).
func shells(t testing.TB) []string {
	var out []string
	for _, s := range []string{"sh", "bash", "zsh", "dash", "ksh", "mksh"} {
		if p, err := exec.LookPath(s); err == nil {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Skip("no shell on PATH")
	}
	return out
}

// runShell runs cmd with shell in an empty directory and returns stdout,
// failing if anything appeared in the directory (the canary).
func runShell(t testing.TB, shell, cmd string) string {
	dir := t.TempDir()
	c := exec.Command(shell, "-c", cmd)
	c.Dir = dir
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Fatalf("%s -c %q: %v: %s", shell, cmd, err, errb.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Fatalf("%s -c %q created %s: the value escaped its quotes", shell, cmd, ents[0].Name())
	}
	return out.String()
}

func checkTemplate(t testing.TB, shells []string, prompt string) {
	// printf prints each argument with a separator, so one that split into
	// two words or lost a byte shows up as a different string.
	tp, err := Parse("{bin} '<%s>' 'x{prompt}y' '{prompt}'", kinds, "prompt")
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := tp.Expand(map[string]string{"bin": "printf", "prompt": prompt})
	if err != nil {
		t.Fatal(err)
	}
	want := "<x" + prompt + "y><" + prompt + ">"
	for _, sh := range shells {
		if got := runShell(t, sh, cmd); got != want {
			t.Fatalf("%s -c %q printed %q; want %q", sh, cmd, got, want)
		}
		if got := runShell(t, sh, "printf %s "+Quote(prompt)); got != prompt {
			t.Fatalf("%s: Quote(%q) read back as %q", sh, prompt, got)
		}
	}
}

func TestHostileThroughRealShells(t *testing.T) {
	sh := shells(t)
	for _, p := range hostile {
		checkTemplate(t, sh, p)
	}
}

// FuzzTemplate proves that no prompt escapes its quotes: whatever the
// prompt, every real shell prints it back byte for byte and nothing runs.
func FuzzTemplate(f *testing.F) {
	for _, p := range hostile {
		f.Add(p)
	}
	sh := shells(f)
	f.Fuzz(func(t *testing.T, prompt string) {
		if strings.IndexByte(prompt, 0) >= 0 || !utf8Valid(prompt) {
			return // Expand refuses these; TestExpandRefuses covers it
		}
		checkTemplate(t, sh, prompt)
	})
}

// FuzzParse checks that the parser never panics, and that whatever it
// accepts expands to a command in which a hostile prompt stays inert.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"{bin} '{prompt}'", `{bin} '{prompt}' \{prompt}`, `sh -c "{bin} '{prompt}'"`,
		"{bin} $'{prompt}'", "{bin} '{prompt}' `x`", "echo '{prompt}'; echo '{prompt}{prompt}'", "{bin} '{prompt", "''{prompt}"} {
		f.Add(s)
	}
	sh := shells(f)
	f.Fuzz(func(t *testing.T, tmpl string) {
		tp, err := Parse(tmpl, map[string]Kind{"prompt": Quoted}, "prompt")
		if err != nil {
			return
		}
		cmd, err := tp.Expand(map[string]string{"prompt": "'; touch PWNED; : '$(touch PWNED)`touch PWNED`"})
		if err != nil {
			t.Fatal(err)
		}
		// Only the template's own text could run something; give it a
		// harmless shape by running it as printf's arguments.
		if strings.ContainsAny(strings.ReplaceAll(tmpl, "{prompt}", ""), ";&|<>()\n\r{}#~*?[$=") {
			return
		}
		runShell(t, sh[0], "printf %s "+cmd+" >/dev/null")
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func BenchmarkExpand(b *testing.B) {
	tp, err := Parse("{bin} '{prompt}'", kinds)
	if err != nil {
		b.Fatal(err)
	}
	vals := map[string]string{"bin": "claude", "prompt": strings.Repeat("it's a prompt ", 20)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tp.Expand(vals); err != nil {
			b.Fatal(err)
		}
	}
}
