package codex

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
		{"idle-after-turn", "idle", "", "", ""},
		{"working", "working", "", "", ""},
		{"permission", "permission", "permission", "Bash", "touch made-by-codex.txt"},
		// 40 columns: the heading and the footer wrap, the options scroll.
		{"permission-40x16", "permission", "permission", "Bash", "echo narrow > narrow.txt"},
		{"denied", "idle", "", "", ""}, // the prompt is gone: Escape returned to the composer
		{"draft", "", "", "", ""},      // a typed draft is neither idle nor a wait
		// request_user_input in Plan mode: the question, not its
		// footer's "esc to interrupt" (working).
		{"question", "question", "question", "request_user_input", "Which colour?"},
		{"question-notes", "question", "question", "request_user_input", "Which colour?"},
		{"question-form1", "question", "question", "request_user_input", "Which size?"},
		{"question-form2", "question", "question", "request_user_input", "Which colour?"},
		{"question-esc", "idle", "", "", ""}, // Escape interrupted the turn
		{"plan", "plan", "plan", "", "# Add a greeting\n1. Write the code.\n2. Test it."},
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
	for _, tc := range []struct{ name, screen, state string }{
		// An old prompt scrolled up above a fresh composer: the composer wins.
		{"old prompt in scrollback", string(perm) + "\n" + lastLines(string(idle), 6), "idle"},
		{"edits approval", "  Would you like to make the following edits?\n\n  src/a.go (+1 -0)\n\n› 1. Yes, proceed (y)\n  2. No (esc)\n\n  Press enter to confirm or esc to cancel\n", "permission"},
		{"footer alone is not a prompt", "  Press enter to confirm or esc to cancel\n", ""},
		{"a transcript that mentions the footer", "› 1. Yes please\n  Press enter to confirm or esc to cancel\n  more\n  and more\n", ""},
	} {
		r := panes.Classify(&rules, tc.screen)
		if r.State != tc.state {
			t.Errorf("%s: %+v; want %q", tc.name, r, tc.state)
		}
	}
	r := panes.Classify(&rules, "  Would you like to make the following edits?\n\n› 1. Yes, proceed (y)\n  Press enter to confirm or esc to cancel\n")
	if r.Tool != "apply_patch" {
		t.Errorf("edits tool %q", r.Tool)
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
