//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// detectOne runs ag-detect once while agent asks in pane: one proc.up for
// the pane, of agent, whose pid isAgent accepts (the process the hooks ran
// in, not a launcher or a helper), and one permission wait for tool (and
// text, when not "") read from the screen.
func detectOne(t *testing.T, h *Harness, tm *Tmux, pane *Pane, agent, tool, text string, isAgent func(pid int) bool) {
	t.Helper()
	out := h.Run(30*time.Second, Bin(t, "ag-detect"), "-S", tm.Socket, "--all", "--panes")
	var ups, waits int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e event.Event
		if err := event.Decode([]byte(line), &e); err != nil {
			t.Errorf("ag-detect wrote %q: %v", line, err)
			continue
		}
		if e.Pane != pane.ID {
			continue
		}
		switch e.Kind {
		case event.ProcUp:
			ups++
			if e.Agent != agent || !isAgent(e.PID) {
				t.Errorf("ag-detect proc.up %s: want %s's own process (pane pid %d)", event.Marshal(&e), agent, pane.PID)
			}
		case event.Wait:
			waits++
			if e.Agent != agent || e.Attention != event.AttnPermission || e.Tool != tool || text != "" && e.Text != text {
				t.Errorf("ag-detect wait %s; want %s, permission, %s, %q", event.Marshal(&e), agent, tool, text)
			}
		}
	}
	if ups != 1 || waits != 1 {
		t.Errorf("ag-detect --all --panes: %d proc.up, %d waits for pane %s, want one each:\n%s", ups, waits, pane.ID, out)
	}
}

// typeWhenIdle types a prompt once the pane shows none of busy (the agent
// working or asking), and presses Enter again while holds says the
// composer still has the text (three times at most): an Enter a busy TUI
// reads too soon after the text is lost. Qwen Code's and Droid's.
func (p *Pane) typeWhenIdle(text string, busy []string, holds func(screen, text string) bool) {
	p.tm.h.T.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if !containsAny(p.Capture(), busy...) {
			break
		}
	}
	p.Type(text)
	for try := 0; try < 3; try++ {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if !holds(p.Capture(), text) {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		p.tm.h.T.Logf("pane %s: the prompt %q was not submitted: Enter again", p.ID, text)
		p.Keys("Enter")
	}
}

// restartPipeline stops the login pipeline pl as a logout does (ag-tail
// first, each later stage at the end of its input), starts it again, and
// returns the new one, with session s of agent followed in it.
func restartPipeline(t *testing.T, h *Harness, pl *Pipeline, agent string, s *Session) (*Pipeline, *Session) {
	t.Helper()
	pl.Stages[0].Stop()
	for _, st := range pl.Stages[1:] {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if ok, _ := st.Exited(); ok {
				break
			}
		}
	}
	pl = h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	return pl, pl.Out.Session(agent, s.ID)
}

// sameTokens waits for s's state with status after a restart and checks
// its tokens are those before: each response counted once.
func sameTokens(t *testing.T, s *Session, status string, before event.Event) {
	t.Helper()
	if before.Tokens == nil {
		t.Fatalf("no tokens before the restart: %s", event.Marshal(&before))
	}
	after := s.WaitFor(t, status+" again after the restart", 30*time.Second, func(e *event.Event) bool {
		return e.Status == status && e.Tokens != nil
	})
	if *after.Tokens != *before.Tokens {
		t.Errorf("tokens after the restart %+v, before %+v", *after.Tokens, *before.Tokens)
	}
}

// lineHolds reports whether a line of screen starts with prefix and holds
// text.
func lineHolds(screen, prefix, text string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, prefix) && strings.Contains(t, text) {
			return true
		}
	}
	return false
}
