package qwen

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

// TestPaneRules: every captured screen reads as what it showed. "quoted"
// is an answer that quotes the permission dialog's own words ("Allow
// execution of", "1. Yes, allow once", "Waiting for user
// confirmation..."): work, not a wait.
func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file, state, attention, tool, text string
	}{
		{"idle-start", "idle", "", "", ""},
		{"working", "working", "", "", ""},
		{"after-turn", "working", "", "", ""},
		{"permission", "permission", "permission", "run_shell_command", "echo marker > marker.txt"},
		{"permission-auto", "permission", "permission", "run_shell_command", "echo marker > marker.txt"},
		{"after-approved", "working", "", "", ""}, // the answer coming
		{"denied", "idle", "", "", ""},
		{"draft", "draft", "", "", "a draft"},
		{"question", "question", "question", "ask_user_question", "Colour\nWhich colour"},
		{"question-typed", "question", "question", "ask_user_question", "Colour\nWhich colour"},
		{"plan-auto", "plan", "plan", "exit_plan_mode", "Plan\n1. Add a cache\n2. Test it"},
		{"after-plan", "draft", "", "", "3"},
		{"quoted", "working", "", "", ""},
		{"idle-suggestion", "draft", "", "", "FAKE-REPLY: Reply with ONLY the suggestion, no quotes or explanation."},
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

// TestPaneQuotedDialog: an answer that quotes a whole permission dialog,
// line by line (the recorded idle screen with such an answer put above its
// composer), is no wait: the composer below it is what the pane shows.
func TestPaneQuotedDialog(t *testing.T) {
	b, err := os.ReadFile("testdata/screens/denied.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "───") })
	quote := []string{
		"  ◆︎ The dialog looks like this:",
		"",
		"   Allow execution of: 'echo'?",
		"",
		"   › 1. Yes, allow once",
		"     2. Always allow run 'echo *' commands in this project",
		"     3. No, suggest changes (esc)",
		"",
		"  ⠏ Waiting for user confirmation...",
		"",
	}
	screen := strings.Join(slices.Concat(lines[:at], quote, lines[at:]), "\n")
	rules := New().PaneRules()
	if r := panes.Classify(&rules, screen); r.State != "idle" {
		t.Errorf("Classify = %+v, want idle:\n%s", r, screen)
	}
}
