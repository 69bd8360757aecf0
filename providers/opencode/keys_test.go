package opencode

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/internal/keystest"
	"github.com/agwatch/ag/providers/provider"
)

// TestScreenOptions: the options ag-detect reads in OpenCode 1.18.33's
// question picker (its cursor is drawn in colour only), each its digit; a
// wide pane's sidebar beside a row is no part of its label; with the own
// answer's input open a digit would be text, a tab of several questions
// is one question's of many, a multi-select's rows are toggled: none.
func TestScreenOptions(t *testing.T) {
	keystest.CheckOptions(t, New().PaneRules(), New().Keys(), ID, []keystest.Options{
		{Screen: "question.txt", Want: []string{"a.go", "b.go"}, Keys: []string{"1", "2"}},
		{Screen: "question-narrow.txt", Want: []string{"a.go", "b.go is the second and a long label"}, Keys: []string{"1", "2"}},
		{Screen: "question-own.txt"},
		{Screen: "question-tabs.txt"},
		{Screen: "question-multi.txt"},
		{Screen: "permission.txt"},
	})
}

// TestQuestionAnswers: only an option's label is typed into the question;
// other text, and any answer while the own answer's input is open, is
// refused. The notification offers the options and no reply.
func TestQuestionAnswers(t *testing.T) {
	rules, km := New().PaneRules(), New().Keys()
	st := event.Event{Kind: event.State, Agent: ID, Session: "s", Status: event.StatusWaiting,
		Attention: event.AttnQuestion, Tool: "question", Text: "Which file first?", Token: "1.1", T: event.At(time.Now()),
		Options: []string{"a.go", "b.go"}}
	for _, c := range []struct{ screen, text, refusal string }{
		{"question.txt", "c.go", "only an option of opencode's question is typed"},
		{"question-own.txt", "a.go", "does not show the question's picker"},
	} {
		b, err := os.ReadFile("testdata/screens/" + c.screen)
		if err != nil {
			t.Fatal(err)
		}
		sc := panes.Classify(&rules, string(b))
		p, err := keyplan.Decide(keyplan.Request{State: st, Action: provider.ActAnswer, Text: c.text, Token: "1.1", Screen: &sc}, km)
		if err == nil || !strings.Contains(err.Error(), c.refusal) {
			t.Errorf("%s %q: %q, %v; want refusal %q", c.screen, c.text, keyplan.Describe(p), err, c.refusal)
		}
	}
	// A tab of several questions offers no options, but its picker is read:
	// an answer in it is picked there.
	b, _ := os.ReadFile("testdata/screens/question-tabs.txt")
	if got := keystest.Answer(t, rules, km, ID, string(b), "b.go"); got != "2" {
		t.Errorf("b.go in a tab: %s, want 2", got)
	}
	n := notify.Agents{Keys: func(string) (provider.KeyMap, bool) { return km, true }}.Build(notify.KindWaiting, &st)
	var labels []string
	for _, b := range n.Buttons {
		labels = append(labels, b.Label)
	}
	if !slices.Equal(labels, st.Options) || n.Reply != "" {
		t.Errorf("notification buttons %q, reply %q; want the options, no reply", labels, n.Reply)
	}
}
