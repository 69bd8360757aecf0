package qwen

import (
	"os"
	"testing"

	"github.com/agwatch/ag/providers/internal/keystest"
)

// TestAnswerKeys: on the question as Qwen drew it, an option's label is
// its digit, other text goes to "Type something..." by its digit.
func TestAnswerKeys(t *testing.T) {
	b, err := os.ReadFile("testdata/screens/question.txt")
	if err != nil {
		t.Fatal(err)
	}
	p := New()
	for text, want := range map[string]string{
		"Green": `2`,
		"Teal":  `3, 150ms, "Teal", 150ms, Enter once shown`,
	} {
		if got := keystest.Answer(t, p.PaneRules(), p.Keys(), ID, string(b), text); got != want {
			t.Errorf("answer %q: %s, want %s", text, got, want)
		}
	}
}

// TestScreenOptions: the options ag-detect reads in the recorded picker,
// each its digit; "Type something..." is none, and with text typed into it
// the picker is not read.
func TestScreenOptions(t *testing.T) {
	keystest.CheckOptions(t, New().PaneRules(), New().Keys(), ID, []keystest.Options{
		{Screen: "question.txt", Want: []string{"Blue", "Green"}, Keys: []string{"1", "2"}},
		{Screen: "question-typed.txt"},
		{Screen: "permission.txt"},
	})
}
