//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// TestNanocoder runs the real Nanocoder (1.30.0) with only its built-in
// definition telling ag about it: a plain turn (working → done), a
// command approved with the definition's key (Enter) and one denied
// (Escape), and a question answered in the user's own words (Up to
// "Type a custom answer…", Enter, the text, Enter), each seen on the
// screen through tmux's control mode.
func TestNanocoder(t *testing.T) {
	t.Parallel()
	bin := Install(t, Nanocoder)
	CheckPackage(t, Nanocoder)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	w := h.watchScreen("nanocoder", func(tm *Tmux) *Pane { return h.StartNanocoder(tm, "nanocoder", bin, api) })

	t.Log("-- a plain turn: working → done, from the screen alone")
	w.turn(t, "FAKE-REPLY: say hello SLOW:3s")
	t.Log("-- a command approved with Enter, another denied with Escape")
	w.approveDeny(t, "execute_bash")
	w.pane.WaitText(30*time.Second, "Tool execution cancelled by user.")

	t.Log("-- a question, answered in the user's own words")
	w.pane.Type(`CALL: ask_user {"question":"Which colour","options":["Blue","Green"]}`)
	q := w.waiting(t, event.AttnQuestion)
	if q.Tool != "ask_user" || q.Text != "Which colour" {
		t.Errorf("the question: tool %q text %q", q.Tool, q.Text)
	}
	w.keys(t, q, "answer", "Teal please")
	// The fake answers at once: the screen goes from the question to the
	// composer, idle (or done, if a working screen was read between).
	w.s.WaitFor(t, "no longer waiting", 60*time.Second, func(e *event.Event) bool { return e.Status != event.StatusWaiting })
	w.pane.WaitText(10*time.Second, "Answer:\n  Teal please")
}
