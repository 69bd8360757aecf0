//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/agwatch/ag/t/fakeapi/chat"
)

// TestGrok runs the real Grok CLI (grok 0.0.34) with only its built-in
// definition telling ag about it: a plain turn (working → done), a
// command approved with the definition's key (Enter) and one denied
// (Escape), each seen on the screen through tmux's control mode.
func TestGrok(t *testing.T) {
	t.Parallel()
	bin := Install(t, Grok)
	CheckPackage(t, Grok) // grok --version says 1.0.1
	h := New(t)
	api := h.FakeChat(chat.Options{})
	w := h.watchScreen("grok", func(tm *Tmux) *Pane { return h.StartGrok(tm, "grok", bin, api) })

	t.Log("-- a plain turn: working → done, from the screen alone")
	w.turn(t, "FAKE-REPLY: say hello SLOW:3s")
	t.Log("-- a command approved with Enter, another denied with Escape")
	w.approveDeny(t, "Bash")
	w.pane.WaitText(30*time.Second, "Operation cancelled by user (pressed Escape)")
}
