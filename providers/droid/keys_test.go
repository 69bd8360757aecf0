package droid

import (
	"testing"

	"github.com/agwatch/ag/providers/internal/keystest"
)

// TestScreenOptions: the options ag-detect reads in the recorded
// questionnaire, each its digit; "Or type your own answer..." is none,
// and with an answer typed the picker is not read.
func TestScreenOptions(t *testing.T) {
	keystest.CheckOptions(t, New().PaneRules(), New().Keys(), ID, []keystest.Options{
		{Screen: "question.txt", Want: []string{"Blue", "Green"}, Keys: []string{"1", "2"}},
		{Screen: "question-typed.txt"},
		{Screen: "permission.txt"},
	})
}
