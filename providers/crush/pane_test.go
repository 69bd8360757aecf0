package crush

import (
	"os"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

// TestPaneRules classifies screens drawn by hand from Crush's source (no
// Crush ran here): the dialog wide and stacked, and a reply that quotes
// its words (no wait: no box's Permission Required above the buttons).
func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file, state, tool, text string
	}{
		{"permission-bash", "permission", "bash", "echo marker > marker.txt"},
		{"permission-narrow", "permission", "view", ""},
		{"quoted", "", "", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/screens/" + tc.file + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			r := panes.Classify(&rules, string(b))
			if r.State != tc.state || r.Tool != tc.tool || r.Text != tc.text {
				t.Errorf("Classify = %+v; want state %q tool %q text %q", r, tc.state, tc.tool, tc.text)
			}
		})
	}
}
