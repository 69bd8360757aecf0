package gemini

import (
	"os"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file, state, attention, tool, text string
	}{
		{"idle-start", "idle", "", "", ""},
		{"idle-after-turn", "idle", "", "", ""}, // "Executing Hook:" with no spinner: AfterAgent's
		{"working", "working", "", "", ""},
		{"working-hooks", "working", "", "", ""}, // the "Executing Hooks" spinner is work
		{"permission", "permission", "permission", "run_shell_command", "sleep 6; echo slept"},
		{"approved-running", "working", "", "", ""},
		{"after-approved", "idle", "", "", ""},
		{"denied", "idle", "", "", ""}, // Escape: "Request cancelled." and the composer
		{"draft", "idle", "", "", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/screens/" + tc.file + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			r := panes.Classify(&rules, string(b))
			if r.State != tc.state || r.Attention != tc.attention || r.Tool != tc.tool || r.Text != tc.text {
				t.Errorf("Classify = %+v; want state %q attention %q tool %q text %q", r, tc.state, tc.attention, tc.tool, tc.text)
			}
		})
	}
}

func TestPaneRulesEdgeCases(t *testing.T) {
	rules := New().PaneRules()
	perm, _ := os.ReadFile("testdata/screens/permission.txt")
	idle, _ := os.ReadFile("testdata/screens/idle-after-turn.txt")
	edit := "╭────────────────────────╮\n│ ? Edit  main.go: a => b │\n│ ╭──────────────────╮ │\n│ │ main.go          │ │\n│ ╰──────────────────╯ │\n│ Apply this change?     │\n│                        │\n│ ● 1. Allow once        │\n│   2. Allow for this session │\n│   3. Modify with external editor │\n│   4. No, suggest changes (esc) │\n╰────────────────────────╯\n"
	for _, tc := range []struct{ name, screen, state, tool string }{
		{"an old prompt above a fresh composer", string(perm) + "\n" + lastLines(string(idle), 8), "idle", ""},
		{"an edit", edit, "permission", "replace"},
		{"the options alone are no prompt", " ● 1. Allow once\n   2. Allow for this session\n", "", ""},
		{"a reply that quotes the box", "✦ It said:\n Allow execution of [Shell]?\n ● 1. Allow once\n   3. No, suggest changes (esc)\n more\n and more\n text\n lines\n here\n", "", ""},
		{"a prompt in the history is no composer", " > fix it\n✦ done\n plenty\n of\n output\n", "", ""},
	} {
		r := panes.Classify(&rules, tc.screen)
		if r.State != tc.state || r.Tool != tc.tool {
			t.Errorf("%s: %+v; want %q %q", tc.name, r, tc.state, tc.tool)
		}
	}
}

func FuzzPaneRules(f *testing.F) {
	for _, n := range []string{"permission", "idle-start", "working", "denied"} {
		b, _ := os.ReadFile("testdata/screens/" + n + ".txt")
		f.Add(string(b))
	}
	rules := New().PaneRules()
	f.Fuzz(func(t *testing.T, screen string) {
		r := panes.Classify(&rules, screen)
		if r.Kind != panes.Wait && (r.Tool != "" || r.Text != "") {
			t.Fatalf("%+v: only a wait names a tool", r)
		}
	})
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
