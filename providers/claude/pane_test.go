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

// Screens captured from Claude Code 2.1.332 in a tmux pane (100x40) against
// the fake model server, in each permission mode; paths shortened to
// /tmp/demo. auto-hold is auto mode's hold when its safety check's
// verdicts do not come back; permission-no-first the prompt auto mode
// puts to the user then ("❯ No" first, no digits).
func TestPaneRules2_1_332(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file            string
		kind            panes.Kind
		state           string
		attention, tool string
		text            string
	}{
		{"idle-manual.txt", panes.Idle, "idle", "", "", ""},
		{"idle-auto.txt", panes.Idle, "idle", "", "", ""},
		{"idle-accept-edits.txt", panes.Idle, "idle", "", "", ""},
		{"idle-plan-mode.txt", panes.Idle, "idle", "", "", ""},
		// A named session (every background one, seen through claude
		// attach): its name on the composer's top rule.
		{"idle-named.txt", panes.Idle, "idle", "", "", ""},
		{"draft-named.txt", panes.Idle, "draft", "", "", ""},
		{"working-after-block.txt", panes.Busy, "working", "", "", ""},
		{"permission-bash.txt", panes.Wait, "permission-boxed", "permission", "Bash", "echo marker > marker.txt"},
		{"permission-no-first.txt", panes.Wait, "permission-no", "permission", "Bash", "rm -rf /tmp/demo/held-dir"},
		// 40x16: the options wrap, the header has scrolled away.
		{"permission-narrow.txt", panes.Wait, "permission-boxed", "permission", "", "echo narrow > narrow.txt"},
		{"auto-hold.txt", panes.Wait, "auto-hold", "permission", "", "rm -rf /tmp/demo/held-dir"},
		{"question-picker.txt", panes.Wait, "question", "question", "AskUserQuestion", "Which colour should the button be?"},
		{"plan-approval.txt", panes.Wait, "plan", "plan", "ExitPlanMode", "Plan\nadd a hello command"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "screens", "2.1.332", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got := panes.Classify(&rules, string(b))
			if got.Kind != tc.kind || got.State != tc.state || got.Attention != tc.attention || got.Tool != tc.tool || got.Text != tc.text {
				t.Errorf("got %v/%s/%q tool %q text %q (line %d), want %v/%s/%q tool %q text %q",
					got.Kind, got.State, got.Attention, got.Tool, got.Text, got.Line, tc.kind, tc.state, tc.attention, tc.tool, tc.text)
			}
		})
	}
}
