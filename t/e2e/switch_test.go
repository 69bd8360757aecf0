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
// command (Claude's /clear, Gemini's, Pi's and omp's /new have their own
// tests): the command, and what the pane shows once the new session
// takes prompts.
var switchers = []struct {
	agent, command, ready string
	// many: the process hosts every session it made (OpenCode's server,
	// where /sessions picks the old one again): the old one stays, done.
	many bool
}{
	{agent: "codex", command: "/new", ready: CodexIdle},
	{agent: "opencode", command: "/new", ready: OpenCodeReady, many: true},
	{agent: "copilot", command: "/clear", ready: CopilotIdle},
}

// TestNewSessionInPlace: a session done in a pane, the agent's command for
// a new session typed there, and a prompt: the new session works and is
// done in the same pane, which shows it; the old one is gone, or, where
// the process still hosts it, done in the same process.
func TestNewSessionInPlace(t *testing.T) {
	for _, sw := range switchers {
		var a leaver
		for _, l := range leavers {
			if l.agent == sw.agent {
				a = l
			}
		}
		t.Run(sw.agent, func(t *testing.T) {
			t.Parallel()
			h, start := a.setup(t)
			h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", a.agent)
			tm := h.StartTmux()
			pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
			prompt := func(p *Pane, text string) {
				if a.prompt != nil {
					a.prompt(p, text)
					return
				}
				p.Type(text)
			}
			p := start(tm, "switch")
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
			w := pl.Out.Await(t, "a new session working", 60*time.Second, func(e *event.Event) bool {
				return e.Kind == event.State && e.Agent == a.agent && e.Session != s.ID && e.Status == event.StatusWorking
			})
			// (Await looks back: the new session's first, idle state may
			// still be ahead of the watcher.)
			s2 := pl.Out.Session(a.agent, w.Session)
			s2.WaitFor(t, "done", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			time.Sleep(3 * time.Second)
			states := h.WaitState(10*time.Second, func([]event.Event) bool { return true }, "the state file")
			var lines []string
			for _, st := range states {
				lines = append(lines, st.Session+" "+st.Status+" pane "+st.Pane+" reason "+st.Reason)
				switch {
				case st.Session != s.ID:
				case sw.many && (st.Status != event.StatusDone || st.PID != s2.Last.PID):
					t.Errorf("the old session %s is %s (pid %d) after %s; want done in the same process (%d)", s.ID, st.Status, st.PID, sw.command, s2.Last.PID)
				case !sw.many && st.Status != event.StatusGone:
					t.Errorf("the old session %s is still %s after %s; want gone", s.ID, st.Status, sw.command)
				}
			}
			many := func(agent string) bool { return sw.many && agent == a.agent }
			if st, _ := state.ForPaneOf(states, p.ID, many); st.Session != s2.ID {
				t.Errorf("the pane shows session %s (%s); want the new one, %s", st.Session, st.Status, s2.ID)
			}
			t.Logf("states after %s:\n%s\nold: %s", sw.command, strings.Join(lines, "\n"), strings.Join(s.History(), " → "))
		})
	}
}
