//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/gemini"
	fakegemini "github.com/agwatch/ag/t/fakeapi/gemini"
)

// TestGeminiLifecycle: what happens to a Gemini session besides plain
// turns, through the login pipeline alone (ag-tail --follow | ag-fold, no
// pane detection): Escape while it works, a turn the API fails, an
// approved command seen running before it ends, /clear (a new session in
// the same process), /resume (the old one again, with no hook saying so),
// /quit, and a pane closed under a working session.
func TestGeminiLifecycle(t *testing.T) {
	t.Parallel()
	lw, _ := newGeminiWorld(t, "life", false, fakegemini.Options{})
	h, tm, pl, p, s := lw.h, lw.tm, lw.pl, lw.p, lw.s

	p.GeminiType("say hello")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: say hello")

	// Escape while the model works: "Request cancelled." in the chat, and
	// Gemini's AfterAgent a few ms later; the session is idle, not done.
	p.GeminiType("think a while SLOW:8s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	p.WaitText(10*time.Second, GeminiWorking)
	p.Keys("Escape")
	s.WaitFor(t, "idle after Escape", 15*time.Second, func(e *event.Event) bool { return e.Status == event.StatusIdle })
	p.WaitText(10*time.Second, GeminiDenied)
	settled(t, h, p, s.ID, event.StatusIdle)

	// A request the API refuses (400): failed, with what Gemini showed,
	// though AfterAgent fires for it too.
	p.GeminiType("FAIL: the fake refuses")
	f := s.WaitFor(t, "failed", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusFailed })
	if !strings.Contains(f.Text, "FAKE-FAIL: the fake refuses") || f.Reason == "" {
		t.Errorf("failed state: reason %q text %q; want a reason and the error Gemini showed", f.Reason, f.Text)
	}
	p.WaitText(10*time.Second, "API Error")
	settled(t, h, p, s.ID, event.StatusFailed)

	// An approved command that takes a while is working once it runs.
	approvedLong(t, p, s, h.Project, "run_shell_command", "1", func() { p.WaitText(10*time.Second, GeminiPermission) })

	// /clear: SessionEnd (clear) for this session, SessionStart (clear)
	// for a new one in the same process and pane.
	old := s.ID
	p.GeminiType("/clear")
	if g := s.Expect(t, 30*time.Second, event.StatusGone)[0]; g.Reason != "clear" {
		t.Errorf("gone state after /clear: reason %q, want clear", g.Reason)
	}
	next := pl.Out.Await(t, "of the session /clear started", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == gemini.ID && e.Session != old && e.Session != ""
	})
	if next.Pane != p.ID || next.Status != event.StatusIdle {
		t.Errorf("the session after /clear: pane %q status %q, want %s idle", next.Pane, next.Status, p.ID)
	}
	s2 := pl.Out.Session(gemini.ID, next.Session)
	s2.Last = next

	// /resume picks the first session back; Gemini fires no hook for
	// that, its chat says it (a session.start from the transcript); the
	// next prompt runs in it and the cleared session, left, is gone.
	// Typed while /clear's hooks still run, the command can be lost with
	// the composer's content: try again until the browser shows.
	for try := 1; ; try++ {
		p.GeminiType("/resume")
		if waitScreen(p, 5*time.Second, "Chat Sessions (1 total)", "Resume: Enter") {
			break
		}
		if try == 3 {
			t.Fatalf("/resume opened no session browser:\n%s", p.Capture())
		}
	}
	p.Keys("Enter")
	s.Expect(t, 30*time.Second, event.StatusIdle)
	p.WaitText(15*time.Second, GeminiIdle)
	time.Sleep(time.Second)
	p.GeminiType("say resumed")
	// The cleared session's end comes first, in the same fold step.
	if g := s2.Expect(t, 30*time.Second, event.StatusGone)[0]; g.Reason != "superseded" {
		t.Errorf("the cleared session after /resume: reason %q, want superseded", g.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)

	// /quit: SessionEnd (exit), the process ends, the pane closes.
	p.Type("/quit") // the pane closes: nothing to look at after
	if g := s.Expect(t, 30*time.Second, event.StatusGone)[0]; g.Reason != "exit" {
		t.Errorf("gone after /quit: reason %q, want exit", g.Reason)
	}

	// A pane closed while its session works: the process dies with no
	// hook, and ag-fold's check finds it gone.
	q := h.StartGemini(tm, "closed", lw.bin)
	q.GeminiType("think a while SLOW:20s")
	w := pl.Out.Await(t, "working in the pane to close", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == gemini.ID && e.Pane == q.ID && e.Status == event.StatusWorking
	})
	sq := pl.Out.Session(gemini.ID, w.Session)
	sq.Last = w
	tm.Run("kill-pane", "-t", q.ID)
	// Gemini cancels the request as it dies ("Request cancelled." in the
	// chat: idle a moment), no SessionEnd: the dead process ends it.
	g := sq.WaitFor(t, "gone after its pane closed", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusGone })
	t.Logf("closed pane: %s (%s)", strings.Join(sq.History(), " → "), g.Reason)
	t.Logf("statuses: %s; after /clear: %s", strings.Join(s.History(), " → "), strings.Join(s2.History(), " → "))
}

// settled checks a moment later that the session in p still shows want:
// nothing left over (the chat's rewritten history, a late hook) moved it.
func settled(t *testing.T, h *Harness, p *Pane, session, want string) {
	t.Helper()
	time.Sleep(2 * time.Second)
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == session {
				return st.Status == want
			}
		}
		return false
	}, "session "+session+" still "+want)
}
