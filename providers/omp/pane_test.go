package omp

import (
	"os"
	"testing"

	"github.com/agwatch/ag/filters/panes"
)

func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	b, err := os.ReadFile("testdata/screens/approval.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := panes.Classify(&rules, string(b))
	if r.State != "approval" || r.Attention != "permission" || r.Tool != "bash" || r.Text != "echo marker > marker.txt" {
		t.Errorf("Classify = %+v", r)
	}
	if r := panes.Classify(&rules, "  the model said: up/down navigate  enter select  esc cancel\n"); r.Kind != panes.None {
		t.Errorf("a line that only looks like the footer: %+v", r)
	}
}
