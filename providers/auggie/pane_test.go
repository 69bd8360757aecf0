package auggie

import (
	"os"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

// TestPaneRules classifies every captured screen of Auggie 0.36.0.
func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file, state, attention, tool, text string
	}{
		{"idle", "idle", "", "", ""},
		{"done-plain", "idle", "", "", ""},
		{"done-approved", "idle", "", "", ""},
		{"denied", "idle", "", "", ""}, // the refusal went to the model, which answered
		{"interrupted", "idle", "", "", ""},
		{"api-error", "error", "", "", ""}, // no hook says the turn failed: the composer does
		{"draft", "draft", "", "", ""},
		{"slash", "draft", "", "", ""},
		{"quote-draft", "draft", "", "", ""}, // the dialog's words typed, not sent
		{"quote-reply", "idle", "", "", ""},  // … sent, and the reply quoting them: no wait
		{"working", "working", "", "", ""},
		{"working-sending", "working", "", "", ""},
		{"running-tool", "working", "", "", ""}, // an approved command running
		{"permission", "permission", "permission", "launch-process", "echo marker > marker.txt"},
		{"permission-after-escape", "permission", "permission", "launch-process", "echo marker > marker.txt"}, // Escape does nothing
		{"permission-sleep", "permission", "permission", "launch-process", "sleep 6; echo slept > slept.txt"},
		{"permission-narrow", "permission", "permission", "launch-process", "echo narrow > narrow.txt"},
		{"permission-long", "permission", "permission", "launch-process",
			"printf \"%s\\n\" alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november\noscar papa quebec romeo > long.txt"},
		{"permission-save", "permission", "permission", "save-file", "new.txt"},
		{"permission-remove", "permission", "permission", "remove-files", "new.txt"},
		{"exited", "", "", "", ""},
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
