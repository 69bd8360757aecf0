package cline

import (
	"testing"

	"github.com/agwatch/ag/providers/internal/keystest"
)

// TestScreenOptions: the options ag-detect reads in Cline's question, each
// reached by Up or Down from the cursor and Enter; the response row is
// none, whatever it holds.
func TestScreenOptions(t *testing.T) {
	keystest.CheckOptions(t, New().PaneRules(), New().Keys(), ID, []keystest.Options{
		{Screen: "question.txt", Want: []string{"Blue", "Green"}, Keys: []string{"Enter", "Down, 30ms, Enter"}},
		{Screen: "question-typed.txt", Want: []string{"Blue", "Green"}, Keys: []string{"Up, 30ms, Up, 30ms, Enter", "Up, 30ms, Enter"}},
		{Screen: "permission.txt"},
	})
}
