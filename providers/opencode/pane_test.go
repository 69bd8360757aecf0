package opencode

import (
	"os"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

// TestPaneRules: OpenCode 1.18.33's screens, captured in tmux.
func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file, state, attention, tool, text string
	}{
		{"idle-home", "idle", "", "", ""},
		{"idle", "idle", "", "", ""},
		{"working", "working", "", "", ""},
		{"permission", "permission", "permission", "bash", "echo cap > cap.txt"},
		{"permission-60x20", "permission", "permission", "bash", "echo narrow > narrow.txt"}, // the footer wraps under the buttons
		{"sub-permission", "permission", "permission", "bash", "echo cap2 > cap2.txt"},
		{"sub-reject", "reject-reason", "permission", "", ""},
		{"question", "question", "question", "question", ""},
		{"question-narrow", "question", "question", "question", ""},
		{"question-own", "question-own", "question", "question", ""},
		{"question-tabs", "question", "question", "question", ""},
		{"question-multi", "question", "question", "question", ""},
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
	for name, screen := range map[string]string{
		"question footer":              "  ┃  Which file?\n  ┃  1. a.go\n  ┃  ↑↓ select  enter submit  esc dismiss\n",
		"a reply that says Allow once": "     Allow once   Allow always   Reject\n     more text\n     and more\n     and more\n",
	} {
		r := panes.Classify(&rules, screen)
		want := map[string]string{"question footer": "question"}[name]
		if r.State != want {
			t.Errorf("%s: %+v, want %q", name, r, want)
		}
	}
}
