package claude

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

// Screens captured from Claude Code 2.1.197 in a tmux pane (100x40), the
// session driven by a fake model server; paths shortened to /tmp/demo.
func TestPaneRulesRealScreens(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file            string
		kind            panes.Kind
		attention, tool string
		text            string
	}{
		{"idle-fresh.txt", panes.Idle, "", "", ""},
		{"idle-after-escape.txt", panes.Idle, "", "", ""},
		{"permission-bash.txt", panes.Wait, "permission", "Bash", "echo marker > marker.txt"},
		{"permission-write.txt", panes.Wait, "permission", "Write", "../notes.txt"},
		{"question-picker.txt", panes.Wait, "question", "AskUserQuestion", "Which language should the example use?"},
		{"question-picker-2.txt", panes.Wait, "question", "AskUserQuestion", "Which language should the example use?"},
		{"plan-approval.txt", panes.Wait, "plan", "ExitPlanMode", "Plan: add a hello command\n1. Write hello.go printing hello\n2. Add a table test"},
		{"question-multi.txt", panes.Wait, "question", "AskUserQuestion", "Which checks should run before the commit?"},
		{"idle-accept-edits.txt", panes.Idle, "", "", ""},
		{"idle-plan-mode.txt", panes.Idle, "", "", ""},
		{"working.txt", panes.Busy, "", "", ""},
		{"draft.txt", panes.Idle, "", "", ""},                // a half-typed prompt, nothing at work
		{"escape-before-output.txt", panes.Idle, "", "", ""}, // the prompt put back, no footer hint
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "screens", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got := panes.Classify(&rules, string(b))
			if got.Kind != tc.kind || got.Attention != tc.attention || got.Tool != tc.tool || got.Text != tc.text {
				t.Errorf("got %v/%q tool %q text %q (state %q line %d), want %v/%q tool %q text %q",
					got.Kind, got.Attention, got.Tool, got.Text, got.State, got.Line, tc.kind, tc.attention, tc.tool, tc.text)
			}
		})
	}
}
