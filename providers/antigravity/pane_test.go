package antigravity

import (
	"os"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

// TestPaneRules: screens written from what ccmux recorded of agy 1.1.x
// (agy is not on npm: no capture of our own).
func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct{ file, state, text string }{
		{"permission", "permission", "curl -s https://api.example.com/health"},
		{"permission-six", "permission", "rm -rf build"},
		{"working", "working", ""},
		{"idle", "idle", ""},
		{"interrupted", "idle", ""}, // Escape: the old prompt above the composer
		{"csat", "idle", ""},        // the survey is no permission prompt
	} {
		b, err := os.ReadFile("testdata/screens/" + tc.file + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		r := panes.Classify(&rules, string(b))
		if r.State != tc.state || r.Text != tc.text {
			t.Errorf("%s: %+v; want %q %q", tc.file, r, tc.state, tc.text)
		}
		if r.Kind == panes.Wait && (r.Attention != "permission" || r.Tool != "run_command") {
			t.Errorf("%s: %+v", tc.file, r)
		}
	}
}

func FuzzPaneRules(f *testing.F) {
	for _, n := range []string{"permission", "idle", "csat"} {
		b, _ := os.ReadFile("testdata/screens/" + n + ".txt")
		f.Add(string(b))
	}
	rules := New().PaneRules()
	f.Fuzz(func(t *testing.T, screen string) {
		if r := panes.Classify(&rules, screen); r.Kind != panes.Wait && r.Text != "" {
			t.Fatalf("%+v", r)
		}
	})
}
