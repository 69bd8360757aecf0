//go:build e2e

package e2e

// What users do by hand at an agent's pane, around what ag shows: interrupt a
// command, refuse a prompt, close the pane, prompt again at work, run two
// panes in one project.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/providers/gemini"
	"github.com/agwatch/ag/providers/pi"
)

// handAgents are the seven CLIs that run here (leavers and Gemini), less
// those named.
func handAgents(less ...string) []string {
	ids := []string{gemini.ID}
	for _, a := range leavers {
		ids = append(ids, a.agent)
	}
	return slices.DeleteFunc(ids, func(id string) bool { return slices.Contains(less, id) })
}

// TestInterruptTool: the user interrupts an agent while the command it
// runs is still running — the other half of TestLeaveMidTurn's interrupt,
// which comes while the model's reply streams. Here the tool has started
// (approved with ag-keys where the agent asks) and no reply is under way:
// what ends the turn is the agent killing the command. The session must
// stop working within seconds and stay stopped (no tool left pending), not
// read as waiting or gone; then the next prompt runs and is done.
func TestInterruptTool(t *testing.T) {
	for _, agent := range handAgents() {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			interrupt := []string{"Escape"} // Gemini's
			if agent != gemini.ID {
				interrupt = leaverOf(agent).interrupt
			}
			w := paneOf(t, agent, "interrupt")
			h, tm, pl, p, prompt := w.h, w.tm, w.pl, w.p, w.prompt
			s := pl.Out.Session(agent, "")
			cmd := "sleep 40"
			if agent == claude.ID {
				cmd = "true && sleep 40" // Claude Code 2.1.332 refuses a command that starts with sleep 25 or more
			}
			prompt("RUN: " + cmd)

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

			t.Logf("-- %s while the command runs: not working within seconds", strings.Join(interrupt, " "))
			s.Drain() // repeats of the waiting state before it (Copilot's meters)
			t0 := time.Now()
			keys(p, interrupt)
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
	found := false
	eachProc(func(_ int, proc string) bool {
		if b, err := os.ReadFile(filepath.Join(proc, "cmdline")); err == nil && string(b) == want {
			cwd, _ := os.Readlink(filepath.Join(proc, "cwd"))
			found = cwd == dir
		}
		return !found
	})
	return found
}

// TestLeaveWaiting: the user answers an agent's permission prompt at the
// pane, not through ag — Escape, each CLI's own way to refuse — and then
// closes a pane whose agent is asking. Refused by hand, the session must
// leave waiting within seconds (a notification of it would be stale) and
// stay at its prompt, the command not run; its pane closed while it waits,
// it is gone. Pi asks no permission.
func TestLeaveWaiting(t *testing.T) {
	for _, agent := range handAgents(pi.ID) {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			w := paneOf(t, agent, "refused")
			h, p, s := w.h, w.p, w.pl.Out.Session(agent, "")
			w.prompt("RUN: echo refused > refused.txt")
			s.WaitFor(t, "waiting", 60*time.Second, func(e *event.Event) bool {
				return e.Status == event.StatusWaiting && e.Attention == event.AttnPermission
			})
			time.Sleep(time.Second) // the dialog drawn

			t.Log("-- Escape at the dialog: not waiting within seconds, not gone")
			t0 := time.Now()
			p.Keys("Escape")
			e := s.WaitFor(t, "no longer waiting after Escape", 15*time.Second, func(e *event.Event) bool {
				return e.Status != event.StatusWaiting && e.Status != event.StatusWorking
			})
			t.Logf("%s after %s (reason %q)", e.Status, time.Since(t0).Round(time.Millisecond), e.Reason)
			if e.Status == event.StatusGone {
				t.Errorf("after Escape at the dialog: gone, want the session at its prompt")
			}
			settled(t, h, p, s.ID, e.Status)
			if _, err := os.Stat(filepath.Join(h.Project, "refused.txt")); err == nil {
				t.Errorf("refused.txt written: the refused command ran")
			}

			t.Log("-- the pane closed while the agent asks: gone")
			time.Sleep(time.Second)
			w.prompt("RUN: echo closed > closed.txt")
			s.WaitFor(t, "waiting again", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
			t0 = time.Now()
			w.tm.Run("kill-pane", "-t", p.ID)
			g := s.WaitFor(t, "gone after its pane closed", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusGone })
			t.Logf("closed while waiting: gone after %s (reason %q); statuses %s", time.Since(t0).Round(time.Millisecond), g.Reason, strings.Join(s.History(), " → "))
		})
	}
}

// TestPromptWhileWorking: a second prompt typed and entered while the
// agent still works on the first, as users do: queued for after it, or
// sent into the turn under way, as each CLI does. Whichever the CLI does, ag must follow it to the
// end: the session is done once the second prompt's reply is on screen,
// and stays done, never left working nor idle.
func TestPromptWhileWorking(t *testing.T) {
	for _, agent := range handAgents() {
		t.Run(agent, func(t *testing.T) {
			t.Parallel()
			w := paneOf(t, agent, "queued")
			h, p, s := w.h, w.p, w.pl.Out.Session(agent, "")
			w.prompt("first SLOW:6s")
			s.WaitFor(t, "working", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWorking })
			time.Sleep(2 * time.Second) // the reply under way
			p.Type("second SLOW:2s")
			p.WaitText(60*time.Second, "FAKE-REPLY: second")
			d := s.WaitFor(t, "done after the second reply", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			settled(t, h, p, s.ID, d.Status)
			hist := s.History()
			t.Logf("statuses: %s", strings.Join(hist, " → "))
			for i, st := range hist {
				if st == event.StatusWorking {
					for _, st := range hist[i:] {
						if st != event.StatusWorking && st != event.StatusDone {
							t.Errorf("%s between the first prompt and the second's end", st)
						}
					}
					break
				}
			}
		})
	}
}

// TestTwoPanesOneProject: two panes of the same agent in the same
// project, both asking at once (Pi, which never asks, both done). Each
// session is shown in its own pane — they share the cwd, which is all
// some tools go by — and ag-keys approve in one pane runs that pane's
// command only.
func TestTwoPanesOneProject(t *testing.T) {
	for _, a := range leavers {
		t.Run(a.agent, func(t *testing.T) {
			t.Parallel()
			w := a.world(t)
			h, pl := w.h, w.pl
			asks := a.agent != pi.ID
			stop := func(e *event.Event) bool {
				return e.Pane != "" && (asks && e.Status == event.StatusWaiting || !asks && e.Status == event.StatusDone)
			}
			pa := w.pane("a")
			sa := pl.Out.Session(a.agent, "")
			w.prompt(pa, "RUN: echo a > a.txt")
			ea := sa.WaitFor(t, "asking in pane a", 60*time.Second, stop)
			pb := w.pane("b")
			w.prompt(pb, "RUN: echo b > b.txt")
			eb := pl.Out.Await(t, "the other session asking in pane b", 60*time.Second, func(e *event.Event) bool {
				return e.Kind == event.State && e.Agent == a.agent && e.Session != sa.ID && stop(e)
			})
			sb := pl.Out.Session(a.agent, eb.Session)
			sb.Last = eb
			if ea.Pane != pa.ID || eb.Pane != pb.ID {
				t.Fatalf("sessions shown in panes %q and %q, want %s and %s", ea.Pane, eb.Pane, pa.ID, pb.ID)
			}
			if !asks {
				return
			}
			approve := func(p *Pane, s *Session, file string) {
				t.Helper()
				if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "approve", "--pane", p.ID, "-S", w.tm.Socket); code != 0 {
					t.Fatalf("ag-keys approve in %s: %d %s\n%s", p.ID, code, out, p.Capture())
				}
				s.WaitFor(t, "done after its approval", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
				if _, err := os.Stat(filepath.Join(h.Project, file)); err != nil {
					t.Errorf("approved in %s, %s not written: %v", p.ID, file, err)
				}
			}
			time.Sleep(time.Second) // the dialogs drawn
			approve(pb, sb, "b.txt")
			if _, err := os.Stat(filepath.Join(h.Project, "a.txt")); err == nil {
				t.Errorf("a.txt written by an approval in pane b")
			}
			if st := now(t, h, sa.ID); st != event.StatusWaiting {
				t.Errorf("pane a's session %s after pane b's approval, want waiting", st)
			}
			approve(pa, sa, "a.txt")
			t.Logf("a: %s; b: %s", strings.Join(sa.History(), " → "), strings.Join(sb.History(), " → "))
		})
	}
}
