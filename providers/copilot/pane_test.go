package copilot

import (
	"os"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

// TestPaneRules classifies every captured screen of Copilot CLI 1.0.102.
func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file, state, attention, tool, text string
	}{
		{"idle", "idle", "", "", ""},
		{"done", "idle", "", "", ""},
		{"after-escape", "idle", "", "", ""},        // Escape on a dialog: back at the composer
		{"after-ctrlc-working", "idle", "", "", ""}, // Ctrl+C while at work
		{"draft", "draft", "", "", ""},
		{"rewind", "draft", "", "", ""}, // Escape Escape: the prompt is back in the composer
		{"working", "working", "", "", ""},
		{"after-esc-working", "working", "", "", ""}, // one Escape does nothing
		{"permission-shell", "permission", "permission", "shell", "echo marker > marker.txt"},
		{"permission-shell-3", "permission", "permission", "shell", "curl -s http://example.com/y"},
		{"permission-url", "permission", "permission", "url", "http://example.com/y"},
		{"permission-create", "permission", "permission", "write", ""},
		{"permission-path-read", "permission", "permission", "read", "/etc"},
		{"permission-subagent", "permission", "permission", "shell", "touch sub.txt"},
		{"plan", "plan-2", "plan", "exit_plan_mode", "- Add a marker file\n- Write tests"},
		{"plan-interactive", "plan-1", "plan", "exit_plan_mode", "- Second plan"},
		{"question", "question", "question", "ask_user", "Which database should I use?"},
		{"question-other", "question", "question", "ask_user", "Which colour?"},
		{"question-other-typed", "question", "question", "ask_user", "Which colour?"},
		{"question-two", "question", "question", "ask_user", "Pick both"},
		{"question-two-second", "question", "question", "ask_user", "Pick both"},
		{"question-text", "question-field", "question", "ask_user", "Your name"},
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

func readScreen(name string) (string, error) {
	b, err := os.ReadFile("testdata/screens/" + name + ".txt")
	return string(b), err
}
