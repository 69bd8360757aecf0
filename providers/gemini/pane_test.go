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
		{"draft", "draft", "", "", "a draft"},
		{"draft-newline", "draft", "", "", "a draft reply"}, // an Enter read as a newline: not sent
		{"shell-mode", "shell", "", "", ""},
		{"shell-mode-draft", "shell", "", "", ""},
		{"enter-plan", "permission", "permission", "enter_plan_mode", "This will restrict the agent to read-only tools to allow for safe planning."},
		{"write-file", "edit", "permission", "write_file", "Writing to colour.txt"},
		{"edit", "edit", "permission", "replace", "colour.txt: blue => red"},
		{"question", "question", "question", "ask_user", "Which colour"},
		{"question-typed", "question", "question", "ask_user", "Which colour"},
		{"question-text-typed", "question", "question", "ask_user", "Your name"},
		{"plan-feedback", "plan", "plan", "exit_plan_mode", "Plan\n1. do it"},
		{"question-tabs", "question", "question", "ask_user", "Your name"},
		{"question-yesno", "question", "question", "ask_user", "Proceed with it"},
		{"question-review", "review", "question", "ask_user", "Name → Ada\nGo → Yes"},
		{"plan", "plan", "plan", "exit_plan_mode", "Plan: paint it\n1. Write colour.txt with green\n2. Check it"},
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

// TestPaneRulesInput: the states keys read alone (KeyMap.Input, Unsent)
// say what a prompt's input or the composer holds; none is a match of
// the rules at large.
func TestPaneRulesInput(t *testing.T) {
	rules := New().PaneRules()
	k := New().Keys()
	for _, tc := range []struct{ file, state, text string }{
		{"question-typed", "answer", "Green, but darker"},
		{"question-text-typed", "answer", "Ada Lovelace"},
		{"question", "answer", "Blue the sky"}, // the cursor on an option: no answer typed
		{"plan-feedback", "feedback", "add a test step"},
		{"draft", "draft", "a draft"},
		{"draft-newline", "draft", "a draft reply"},
		{"idle-start", "", ""},
	} {
		b, err := os.ReadFile("testdata/screens/" + tc.file + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		only := rules.Only(append(k.Input, k.Unsent...))
		if r := panes.Classify(&only, string(b)); r.State != tc.state || strings.Join(strings.Fields(r.Text), " ") != tc.text {
			t.Errorf("%s: %+v; want %q holding %q", tc.file, r, tc.state, tc.text)
		}
		if r := panes.Classify(&rules, string(b)); r.State == "answer" || r.State == "feedback" {
			t.Errorf("%s: %s is a match of all the rules", tc.file, r.State)
		}
	}
}

func TestPaneRulesEdgeCases(t *testing.T) {
	rules := New().PaneRules()
	perm, _ := os.ReadFile("testdata/screens/permission.txt")
	idle, _ := os.ReadFile("testdata/screens/idle-after-turn.txt")
	question, _ := os.ReadFile("testdata/screens/question.txt")
	plan, _ := os.ReadFile("testdata/screens/plan.txt")
	for _, tc := range []struct{ name, screen, state, tool string }{
		{"an old prompt above a fresh composer", string(perm) + "\n" + lastLines(string(idle), 8), "idle", ""},
		{"an old question above a fresh composer", string(question) + "\n" + lastLines(string(idle), 8), "idle", ""},
		{"an old plan above a fresh composer", string(plan) + "\n" + lastLines(string(idle), 8), "idle", ""},
		{"a reply that quotes the question box", "✦ It showed:\n Answer Questions\n Which\n ● 1.  Blue\n Enter to select · ↑/↓ to navigate · Esc to cancel\n more\n text\n here\n", "", ""},
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
	for _, n := range []string{"permission", "idle-start", "working", "denied", "question", "plan", "edit", "draft", "shell-mode"} {
		b, _ := os.ReadFile("testdata/screens/" + n + ".txt")
		f.Add(string(b))
	}
	rules := New().PaneRules()
	f.Fuzz(func(t *testing.T, screen string) {
		r := panes.Classify(&rules, screen)
		if r.Kind != panes.Wait && r.Tool != "" || r.Kind != panes.Wait && r.Text != "" && r.State != "draft" {
			t.Fatalf("%+v: only a wait names a tool, only a wait or a draft has text", r)
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
