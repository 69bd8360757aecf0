//go:build e2e

package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// TestKimi runs the real Kimi Code (2.1.0) with only its built-in
// definition telling ag about it: a plain turn (working → done), a
// command approved with the definition's key (1) and one denied
// (Escape), a reply typed by ag-keys into its composer, and its question
// seen as a question with its options, answered by ag-keys with an option
// and with the user's own words (each then submitted at its review), each
// read from the screen through tmux's control mode.
func TestKimi(t *testing.T) {
	t.Parallel()
	bin := Install(t, Kimi)
	CheckPackage(t, Kimi) // its --version needs the node beside it
	h := New(t)
	api := h.FakeChat(chat.Options{})
	w := h.watchScreen("kimi", func(tm *Tmux) *Pane { return h.StartKimi(tm, "kimi", bin, api) })

	t.Log("-- a plain turn: working → done, from the screen alone")
	w.pane.Type("say hello SLOW:3s")
	done := w.s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)[1]
	w.pane.WaitText(10*time.Second, "FAKE-REPLY: say hello SLOW:3s")

	t.Log("-- a reply to the finished session, pasted into its composer")
	w.keys(t, done, "reply", "say replied SLOW:2s")
	w.pane.WaitText(30*time.Second, "FAKE-REPLY: say replied SLOW:2s")
	w.s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)

	t.Log("-- a command approved with 1, another denied with Escape")
	w.approveDeny(t, "Bash")
	w.pane.WaitText(30*time.Second, `Tool "Bash" was not run because the user rejected the approval request.`)

	const ask = `CALL: AskUserQuestion {"questions":[{"question":"Which colour","header":"Colour","options":[{"label":"Blue","description":"the sky"},{"label":"Green","description":"the grass"}],"multi_select":false}]}`
	t.Log("-- its question: a wait on a question with its options; an option answered (its digit, then the review's Submit)")
	w.pane.Type(ask)
	q := w.waiting(t, event.AttnQuestion)
	if q.Tool != "AskUserQuestion" || q.Text != "Which colour" || !slices.Equal(q.Options, []string{"Blue", "Green"}) {
		t.Errorf("the question: tool %q text %q options %q", q.Tool, q.Text, q.Options)
	}
	w.keys(t, q, "answer", "green")
	w.s.WaitFor(t, "done after the answer", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
	// Kimi's record of the answers it sent: "Collected your answers", the
	// question, "→  Green".
	w.pane.WaitText(10*time.Second, "Collected your answers", "→  Green")

	t.Log("-- answered in the user's own words: Other, the text, Enter, then Submit")
	w.pane.Type(ask)
	w.keys(t, w.waiting(t, event.AttnQuestion), "answer", "Teal please")
	w.s.WaitFor(t, "done after the own answer", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
	w.pane.WaitText(10*time.Second, "→  Teal please")

	t.Log("-- cancelled with Escape: the wait ends")
	w.pane.Type(ask)
	w.waiting(t, event.AttnQuestion)
	w.pane.Keys("Escape")
	w.s.WaitFor(t, "no longer waiting", 60*time.Second, func(e *event.Event) bool { return e.Status != event.StatusWaiting })
}
