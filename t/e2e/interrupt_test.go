//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/gemini"
	fakegemini "github.com/agwatch/ag/t/fakeapi/gemini"
)

// TestInterruptTool: the user interrupts an agent while the command it
// runs is still running — the other half of TestLeaveMidTurn's interrupt,
// which comes while the model's reply streams. Here the tool has started
// (approved with ag-keys where the agent asks) and no reply is under way:
// what ends the turn is the agent killing the command. The session must
// stop working within seconds and stay stopped (no tool left pending), not
// read as waiting or gone; then the next prompt runs and is done.
func TestInterruptTool(t *testing.T) {
	type agent struct {
		id        string
		interrupt []string
	}
	agents := []agent{{gemini.ID, []string{"Escape"}}}
	for _, a := range leavers {
		agents = append(agents, agent{a.agent, a.interrupt})
	}
	for _, a := range agents {
		t.Run(a.id, func(t *testing.T) {
			t.Parallel()
			var h *Harness
			var tm *Tmux
			var pl *Pipeline
			var p *Pane
			var prompt func(string)
			if a.id == gemini.ID {
				w, _ := newGeminiWorld(t, "interrupt", false, fakegemini.Options{})
				h, tm, pl, p, prompt = w.h, w.tm, w.pl, w.p, w.p.GeminiType
			} else {
				w := leaverOf(a.id).world(t)
				h, tm, pl, p = w.h, w.tm, w.pl, w.pane("interrupt")
				prompt = func(text string) { w.prompt(p, text) }
			}
			s := pl.Out.Session(a.id, "")
			prompt("RUN: sleep 40")

			// The command running: at once where the agent runs it
			// unasked, after ag-keys approve where it asks (the dialog
			// can come seconds after the tool's start).
			s.WaitFor(t, "working", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWorking })
			asked := false
			// (omp runs it in a shell of its own, with no process to see:
			// there, working again after the approval.)
			for deadline := time.Now().Add(60 * time.Second); !running(h.Project, "sleep", "40"); time.Sleep(200 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("sleep 40 never ran (%s)\n%s", strings.Join(s.History(), " → "), p.Capture())
				}
				st := now(t, h, s.ID)
				if asked && st == event.StatusWorking {
					break
				}
				if asked || st != event.StatusWaiting {
					continue
				}
				asked = true
				s.WaitFor(t, "waiting", time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
				time.Sleep(time.Second) // the dialog drawn
				if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "approve", "--pane", p.ID, "-S", tm.Socket); code != 0 {
					t.Fatalf("ag-keys approve: %d %s\n%s", code, out, p.Capture())
				}
			}
			time.Sleep(time.Second) // the command under way
			settled(t, h, p, s.ID, event.StatusWorking)

			t.Logf("-- %s while the command runs: not working within seconds", strings.Join(a.interrupt, " "))
			t0 := time.Now()
			keys(p, a.interrupt)
			e := s.WaitFor(t, "no longer working after the interrupt", 20*time.Second, func(e *event.Event) bool {
				return e.Status != event.StatusWorking
			})
			t.Logf("%s after %s (reason %q)", e.Status, time.Since(t0).Round(time.Millisecond), e.Reason)
			if e.Status == event.StatusWaiting || e.Status == event.StatusGone {
				t.Errorf("after the interrupt: %s, want the session stopped at its prompt\n%s", e.Status, p.Capture())
			}
			settled(t, h, p, s.ID, e.Status)

			t.Log("-- the next prompt: working → done")
			time.Sleep(time.Second)
			prompt("after the interrupt")
			s.WaitFor(t, "working again", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWorking })
			s.WaitFor(t, "done", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			p.WaitText(30*time.Second, "FAKE-REPLY: after the interrupt")
			t.Logf("statuses: %s", strings.Join(s.History(), " → "))
		})
	}
}

// now is session's status in the state file.
func now(t *testing.T, h *Harness, session string) string {
	t.Helper()
	var status string
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == session {
				status = st.Status
				return true
			}
		}
		return false
	}, "session "+session)
	return status
}

// running reports a process in dir whose argv is argv.
func running(dir string, argv ...string) bool {
	want := strings.Join(argv, "\x00") + "\x00"
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || string(b) != want {
			continue
		}
		if cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); cwd == dir {
			return true
		}
	}
	return false
}
