//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// switchers are the agents whose TUI starts a new session in place with a
// command, and goes back to an older one from a picker (Claude's and
// Gemini's /clear and /resume have their own tests): the commands, and
// what the pane shows once the new session takes prompts.
var switchers = []struct {
	agent, command, ready string
	resume                string // opens the picker, newest first: Down, Enter is the one before
	// many: the process hosts every session it made (OpenCode's server):
	// the one left stays, done, in the same process.
	many bool
}{
	{agent: "codex", command: "/new", ready: CodexIdle, resume: "/resume"},
	{agent: "opencode", command: "/new", ready: OpenCodeReady, resume: "/sessions", many: true},
	{agent: "copilot", command: "/clear", ready: CopilotIdle, resume: "/resume"},
	{agent: "pi", command: "/new", ready: PiReady, resume: "/resume"},
	{agent: "omp", command: "/new", ready: OmpReady, resume: "/resume"},
}

// TestSwitchSessionInPlace: a session done in a pane, the agent's command
// for a new session, a prompt — the new session works and is done in the
// same pane, which shows it — and then the picker back to the first
// session and a prompt: the first works again in the pane, which shows it.
// Each time the session left is gone, or, where the process still hosts
// it, done in that process.
func TestSwitchSessionInPlace(t *testing.T) {
	for _, sw := range switchers {
		a := leaverOf(sw.agent)
		t.Run(sw.agent, func(t *testing.T) {
			t.Parallel()
			w := a.world(t)
			h, pl, prompt := w.h, w.pl, w.prompt
			p := w.pane("switch")
			// left checks, once the states settled, that the pane shows
			// session on and that the session left is gone or, where
			// the process hosts many, done in on's process.
			left := func(what string, on *Session, left string) {
				t.Helper()
				time.Sleep(3 * time.Second)
				states := h.WaitState(10*time.Second, func([]event.Event) bool { return true }, "the state file")
				var lines []string
				for _, st := range states {
					lines = append(lines, st.Session+" "+st.Status+" pane "+st.Pane+" reason "+st.Reason)
					switch {
					case st.Session != left:
					case sw.many && (st.Status != event.StatusDone || st.PID != on.Last.PID):
						t.Errorf("after %s the session left, %s, is %s (pid %d); want done in the same process (%d)", what, left, st.Status, st.PID, on.Last.PID)
					case !sw.many && st.Status != event.StatusGone:
						t.Errorf("after %s the session left, %s, is still %s; want gone", what, left, st.Status)
					}
				}
				many := func(agent string) bool { return sw.many && agent == a.agent }
				if st, _ := state.ForPaneOf(states, p.ID, many); st.Session != on.ID {
					t.Errorf("after %s the pane shows session %s (%s); want %s", what, st.Session, st.Status, on.ID)
				}
				t.Logf("states after %s:\n%s", what, strings.Join(lines, "\n"))
			}

			s := pl.Out.Session(a.agent, "")
			prompt(p, "first session SLOW:1s")
			s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
			p.WaitText(30*time.Second, "FAKE-REPLY: first session")
			time.Sleep(time.Second)

			t.Logf("-- %s, then a prompt: a new session in the same pane", sw.command)
			p.Type(sw.command)
			p.WaitText(30*time.Second, sw.ready)
			time.Sleep(time.Second)
			prompt(p, "second session SLOW:1s")
			wn := pl.Out.Await(t, "a new session working", 60*time.Second, func(e *event.Event) bool {
				return e.Kind == event.State && e.Agent == a.agent && e.Session != s.ID && e.Status == event.StatusWorking
			})
			// (Await looks back: the new session's first, idle state may
			// still be ahead of the watcher.)
			s2 := pl.Out.Session(a.agent, wn.Session)
			s2.WaitFor(t, "done", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			p.WaitText(30*time.Second, "FAKE-REPLY: second session")
			left(sw.command, s2, s.ID)

			t.Logf("-- %s, Down, Enter, then a prompt: the first session again", sw.resume)
			time.Sleep(time.Second)
			p.Type(sw.resume)
			time.Sleep(2 * time.Second)
			p.Keys("Down")
			time.Sleep(time.Second)
			p.Keys("Enter")
			p.WaitText(30*time.Second, "first session", sw.ready)
			time.Sleep(2 * time.Second)
			prompt(p, "the first again SLOW:1s")
			s.WaitFor(t, "working again", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWorking })
			s.WaitFor(t, "done again", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			left(sw.resume, s, s2.ID)
			t.Logf("first: %s; second: %s", strings.Join(s.History(), " → "), strings.Join(s2.History(), " → "))
		})
	}
}
