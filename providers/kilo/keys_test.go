package kilo

import (
	"testing"

	"github.com/agwatch/ag/providers/internal/keystest"
)

// TestScreenOptions: the options ag-detect reads in Kilo's question
// picker, each its digit; its own answer's row is none.
func TestScreenOptions(t *testing.T) {
	keystest.CheckOptions(t, New().PaneRules(), New().Keys(), ID, []keystest.Options{
		{Screen: "question.txt", Want: []string{"Blue", "Green"}, Keys: []string{"1", "2"}},
		{Screen: "permission.txt"},
	})
}
