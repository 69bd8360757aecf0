//go:build e2e

package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// TestLetta runs the real Letta Code (0.25.9, local backend) with only its
// built-in definition telling ag about it: a plain turn (working → done),
// a command approved with the definition's key (1) and one denied
// (Escape), and AskUserQuestion answered in the user's own words (Down to
// "Type something.", the text pasted, Enter).
func TestLetta(t *testing.T) {
	t.Parallel()
	bin := Install(t, Letta)
	CheckPackage(t, Letta) // letta --version writes .letta/ in the folder it runs in
	h := New(t)
	api := h.FakeChat(chat.Options{})
	w := h.watchScreen("letta", func(tm *Tmux) *Pane { return h.StartLetta(tm, "letta", bin, api) })

	t.Log("-- a plain turn: working → done, from the screen alone")
	w.turn(t, "FAKE-REPLY: say hello SLOW:3s")
	t.Log("-- a command approved with 1, another denied with Escape")
	w.approveDeny(t, "Bash")
	w.pane.WaitText(30*time.Second, "Approval cancelled")

	t.Log("-- a question, answered in the user's own words")
	w.pane.Type(`CALL: AskUserQuestion {"questions":[{"question":"Which colour","header":"Colour","options":[{"label":"Blue","description":"the sky"},{"label":"Green","description":"grass"}],"multiSelect":false}]}`)
	q := w.waiting(t, event.AttnQuestion)
	if q.Tool != "AskUserQuestion" || q.Text != "Which colour" {
		t.Errorf("the question: tool %q text %q", q.Tool, q.Text)
	}
	// The picker's rows, read on the screen, are its options (buttons).
	if !slices.Equal(q.Options, []string{"Blue", "Green"}) {
		w.s.WaitFor(t, "the question's options", 10*time.Second, func(e *event.Event) bool {
			return e.Status == event.StatusWaiting && slices.Equal(e.Options, []string{"Blue", "Green"})
		})
	}
	w.keys(t, q, "answer", "Teal please")
	w.s.WaitFor(t, "no longer waiting", 60*time.Second, func(e *event.Event) bool { return e.Status != event.StatusWaiting })
	w.pane.WaitText(30*time.Second, "Which colour → Teal please")
}
