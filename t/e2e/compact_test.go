//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/copilot"
	"github.com/agwatch/ag/providers/gemini"
	"github.com/agwatch/ag/providers/omp"
	"github.com/agwatch/ag/providers/opencode"
	"github.com/agwatch/ag/providers/pi"
	"github.com/agwatch/ag/t/fakeapi/chat"
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

// TestCompactWorking: Pi's and omp's /compact while the model takes its
// time over the summary (the fake holds replies without tools 8 s, as a
// real model takes seconds): working, the tool compact, for as long as
// the pane says it compacts, then idle; a second /compact with nothing
// new, which the CLI may refuse, leaves it idle too; Escape during one
// (Pi: "escape to cancel") is idle within seconds.
func TestCompactWorking(t *testing.T) {
	for _, agent := range []string{pi.ID, omp.ID} {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			w := leaverOf(agent).worldWith(t, chat.Options{Untooled: 8 * time.Second})
			h, pl := w.h, w.pl
			p := w.pane("compact")
			s := pl.Out.Session(agent, "")
			time.Sleep(time.Second)
			turns := func() {
				for i := 0; i < 6; i++ {
					p.Type(fmt.Sprintf("turn %d to compact %s", i, strings.Repeat("word ", 800)))
					s.WaitFor(t, "done", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
					time.Sleep(time.Second)
				}
			}
			turns()

			t.Log("-- /compact: working (compact) while the summary is written, then idle")
			p.Type("/compact")
			// The screen at work can say working a moment before the
			// extension names the compaction (ag-detect --watch is in the
			// pipeline): the compaction's own state is the one awaited.
			s.WaitFor(t, "working on the compaction", 10*time.Second, func(e *event.Event) bool {
				return e.Status == event.StatusWorking && e.Tool == event.ToolCompact
			})
			t0 := time.Now()
			s.WaitFor(t, "idle after the compaction", 20*time.Second, func(e *event.Event) bool { return e.Status == event.StatusIdle })
			t.Logf("idle %s after working (the summary held 8 s)", time.Since(t0).Round(time.Millisecond))
			if time.Since(t0) < 5*time.Second {
				t.Errorf("idle %s into an 8 s compaction", time.Since(t0))
			}

			t.Log("-- /compact again, nothing new: idle")
			time.Sleep(time.Second)
			p.Type("/compact")
			time.Sleep(2 * time.Second)
			h.WaitState(15*time.Second, func(states []event.Event) bool {
				for _, st := range states {
					if st.Session == s.ID {
						return st.Status == event.StatusIdle
					}
				}
				return false
			}, "session "+s.ID+" idle after a second /compact")
			settled(t, h, p, s.ID, event.StatusIdle)

			t.Log("-- /compact, Escape while it runs: idle within seconds")
			turns()
			p.Type("/compact")
			s.WaitFor(t, "working on the compaction", 10*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWorking })
			time.Sleep(2 * time.Second)
			t0 = time.Now()
			p.Keys("Escape")
			s.WaitFor(t, "idle after Escape", 5*time.Second, func(e *event.Event) bool { return e.Status == event.StatusIdle })
			t.Logf("Escape: idle after %s", time.Since(t0).Round(time.Millisecond))
			settled(t, h, p, s.ID, event.StatusIdle)
			t.Logf("statuses: %s", strings.Join(s.History(), " → "))
		})
	}
}
