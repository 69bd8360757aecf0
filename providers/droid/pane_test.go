package droid

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/internal/keystest"
)

// TestPaneRules: every captured screen reads as what it showed. "quoted"
// is an answer quoting the dialog's own words ("Yes, allow", "No,
// cancel", "Esc cancel"): finished, not a wait.
func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file, state, attention, tool, text string
	}{
		{"idle-start", "idle", "", "", ""},
		{"working", "working", "", "", ""},
		{"permission", "permission", "permission", "Execute", "echo marker > marker.txt"},
		{"permission-two", "permission", "permission", "Execute", "echo up > up.txt"},
		{"after-approved", "idle", "", "", ""},
		{"denied", "idle", "", "", ""},
		{"escaped", "idle", "", "", ""},
		{"quoted", "idle", "", "", ""},
		{"draft", "draft", "", "", "a draft"},
		{"question", "question", "question", "AskUser", "Which colour"},
		{"question-typed", "question", "question", "AskUser", "Which colour"},
		{"plan", "plan", "plan", "ExitSpecMode", "1. Add a cache\n2. Test it"},
		{"plan-autonomy", "plan-autonomy", "plan", "ExitSpecMode", ""},
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

// TestAnswerKeys: on AskUser as droid drew it, an option's label is its
// digit; other text is typed straight into the own answer's row.
func TestAnswerKeys(t *testing.T) {
	b, err := os.ReadFile("testdata/screens/question.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := New()
	for text, want := range map[string]string{
		"Green": `2`,
		"Teal":  `"Teal", 150ms, Enter once shown`,
	} {
		if got := keystest.Answer(t, p.PaneRules(), p.Keys(), ID, string(b), text); got != want {
			t.Errorf("answer %q: %s, want %s", text, got, want)
		}
	}
}

// TestPaneQuotedDialog: an answer that quotes the whole permission menu,
// line by line, put above the recorded idle composer, is no wait.
func TestPaneQuotedDialog(t *testing.T) {
	b, err := os.ReadFile("testdata/screens/denied.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "Auto (Off)") })
	quote := []string{
		"⛬  The menu reads:",
		"  Command to approve · low risk",
		"  ↳ echo hi",
		"╭────────────────╮",
		"│  Yes, allow    │",
		"│  No, cancel    │",
		"╰────────────────╯",
		"  ↑↓ navigate   Enter select   Esc cancel",
		"",
	}
	screen := strings.Join(slices.Concat(lines[:at], quote, lines[at:]), "\n")
	rules := New().PaneRules()
	if r := panes.Classify(&rules, screen); r.State != "idle" {
		t.Errorf("Classify = %+v, want idle:\n%s", r, screen)
	}
}
