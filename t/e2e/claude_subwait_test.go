//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// TestClaudeSubAgentAsks: a sub-agent's permission prompt ("Bash command ·
// from the general-purpose agent") blocks the session like the main
// thread's: waiting, through the login pipeline with hooks only; approved
// (with ag-keys) it goes on to done; denied with Escape the sub-agent and the turn go on,
// and the command does not run.
func TestClaudeSubAgentAsks(t *testing.T) {
	t.Parallel()
	lw, _ := newClaudeWorld(t, "sub")
	h, tm, p, s := lw.h, lw.tm, lw.p, lw.s

	// The fake gives the sub-agent the rest of the prompt: it runs Bash.
	p.Type("AGENT: RUN: echo sub > sub.txt")
	w := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if w.Attention != event.AttnPermission || w.Tool != "Bash" || !strings.Contains(w.Text, "echo sub") {
		t.Errorf("waiting state: attention %q tool %q text %q, want permission, Bash, the command", w.Attention, w.Tool, w.Text)
	}
	p.WaitText(10*time.Second, "from the general-purpose agent", ClaudePermission)
	// Approved with ag-keys, as the tmux binding or a notification's
	// button does: the prompt on screen is the one the state names.
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Token == w.Token {
				return true
			}
		}
		return false
	}, "the waiting state in the state file")
	k := exec.Command(Bin(t, "ag-keys"), "approve", "--pane", p.ID, "--token", w.Token, "-S", tm.Socket)
	k.Env = h.Environ()
	if out, err := k.CombinedOutput(); err != nil || !strings.Contains(string(out), `"status":"sent"`) {
		t.Fatalf("ag-keys approve: %v\n%s", err, out)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "sub.txt")); err != nil || string(b) != "sub\n" {
		t.Errorf("the approved command did not run: sub.txt %q, %v", b, err)
	}
	p.WaitAnyText(10*time.Second, ClaudeIdle, ClaudeIdleAgents)

	p.Type("AGENT: RUN: echo no > no.txt")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	p.WaitText(10*time.Second, "from the general-purpose agent", ClaudePermission)
	// Escape there denies the one call: the sub-agent is told so and goes
	// on, and so does the turn (Claude 2.1.197; 2.1.332 runs the sub-agent
	// in the background, and the turn waits for it).
	p.Keys("Escape")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitAnyText(10*time.Second, ClaudeIdle, ClaudeIdleAgents)
	if _, err := os.Stat(filepath.Join(h.Project, "no.txt")); err == nil {
		t.Error("no.txt exists: the denied command ran")
	}
	t.Logf("statuses %s", strings.Join(s.History(), " → "))
}
