//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/copilot"
	"github.com/agwatch/ag/providers/gemini"
	"github.com/agwatch/ag/providers/omp"
	"github.com/agwatch/ag/providers/opencode"
	"github.com/agwatch/ag/providers/pi"
)

// TestCompactAtPrompt: the agent's command that compacts the conversation,
// typed at the prompt after a turn (Claude's and Codex's /compact are in
// their lifecycle tests). It sends the model a request of its own, which
// no prompt started: the session must not be left working, waiting,
// failed or gone by it, must stay the same session in the same pane, and
// the next prompt works and is done.
func TestCompactAtPrompt(t *testing.T) {
	for _, tc := range []struct{ agent, command string }{
		{opencode.ID, "/compact"}, {pi.ID, "/compact"}, {omp.ID, "/compact"}, {copilot.ID, "/compact"}, {gemini.ID, "/compress"},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			t.Parallel()
			w := paneOf(t, tc.agent, "compact")
			h, p, s := w.h, w.p, w.pl.Out.Session(tc.agent, "")
			w.prompt("before the compaction")
			s.WaitFor(t, "done", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			p.WaitText(30*time.Second, "FAKE-REPLY: before the compaction")
			time.Sleep(time.Second)

			t.Logf("-- %s at the prompt", tc.command)
			reqs := h.Requests()
			w.prompt(tc.command)
			// omp 18.2.3 compacts nothing this small, and says so.
			for deadline := time.Now().Add(60 * time.Second); h.Requests() == reqs; time.Sleep(200 * time.Millisecond) {
				if strings.Contains(p.Capture(), "Nothing to compact") {
					t.Logf("%s: nothing to compact", tc.agent)
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s sent the model nothing:\n%s", tc.command, p.Capture())
				}
			}
			time.Sleep(3 * time.Second) // the summary written
			st := now(t, h, s.ID)
			if st != event.StatusIdle && st != event.StatusDone {
				t.Errorf("after %s: %s, want idle or done\n%s", tc.command, st, p.Capture())
			}
			settled(t, h, p, s.ID, st)

			t.Log("-- the next prompt: the same session works and is done in the pane")
			w.prompt("after the compaction")
			s.WaitFor(t, "working again", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWorking })
			d := s.WaitFor(t, "done again", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			if d.Pane != p.ID {
				t.Errorf("done in pane %q, want %s", d.Pane, p.ID)
			}
			p.WaitText(30*time.Second, "FAKE-REPLY: after the compaction")
			t.Logf("statuses: %s", strings.Join(s.History(), " → "))
		})
	}
}
