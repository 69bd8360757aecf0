//go:build e2e

package e2e

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude"
)

// TestClaudeLifecycle: what happens to a session besides turns, through the
// login pipeline (`ag-tail --follow | ag-fold`, no pane detection): a turn
// the API fails, /model (the context window follows), /compact at the
// prompt, /clear (a new session in the same pane), the old session again
// (with /resume in the TUI, and `claude --resume` in another pane) and
// --fork-session (a new one).
func TestClaudeLifecycle(t *testing.T) {
	t.Parallel()
	lw, api := newClaudeWorld(t, "life")
	h, bin, tm, pl, p, s := lw.h, lw.bin, lw.tm, lw.pl, lw.p, lw.s

	p.Type("say hello")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: say hello", ClaudeIdle)

	// A request the API refuses (400: Claude does not retry) fails the
	// turn, with what Claude showed; the next prompt works again.
	p.Type("FAIL: the fake refuses")
	f := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusFailed)[1]
	if f.Reason == "" || !strings.Contains(f.Text, "API Error: 400 FAKE-FAIL: the fake refuses") {
		t.Errorf("failed state: reason %q text %q, want a reason and the error Claude showed", f.Reason, f.Text)
	}
	p.WaitText(10*time.Second, "API Error: 400", ClaudeIdle)
	p.Type("say again")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: say again", ClaudeIdle)

	// /model: the model and its context window follow the model in use.
	// The CLI asks the API for the 1M window with an anthropic-beta header:
	// that is the truth each state's size is held to, and the model the
	// request names the truth of its model. (2.1.197 started on Opus 4.8
	// with 1M — SessionStart said "[1m]" — and "/model sonnet" was Sonnet 5
	// with 200k; 2.1.332 starts on Opus 5.5 with 200k, and its /model picks
	// Sonnet 5.5 and Opus 5.5.)
	window := func(prompt string) int64 {
		for _, r := range api.Requests() {
			if r.Last == prompt && r.Tools > 0 {
				if strings.Contains(r.Beta, "context-1m") {
					return 1000000
				}
				return 200000
			}
		}
		t.Fatalf("the CLI never sent %q", prompt)
		return 0
	}
	// The transcript's meter comes after the Stop hook's done.
	say := func(s *Session, prompt string) string {
		t.Helper()
		p.Type(prompt)
		s.WaitFor(t, "done with the model and window the CLI asked for", 30*time.Second, func(e *event.Event) bool {
			return e.Status == event.StatusDone && e.Prompt == prompt && e.Model != "" && e.Model == mainModel(api, prompt) &&
				e.Context != nil && e.Context.Size == window(prompt)
		})
		p.WaitText(10*time.Second, "FAKE-REPLY: "+prompt, ClaudeIdle)
		return mainModel(api, prompt)
	}
	// With a conversation to re-read, /model asks first ("Yes, switch to
	// <name>"); then "Set model to <name>".
	switchTo := func(arg string) {
		t.Helper()
		p.Type("/model " + arg)
		p.WaitText(10*time.Second, "Yes, switch to")
		p.Keys("Enter")
		p.WaitText(10*time.Second, "Set model to", ClaudeIdle)
	}
	first := say(s, "say first model")
	switchTo("sonnet")
	sonnet := say(s, "say sonnet")
	switchTo("opus")
	opus := say(s, "say opus")
	if first == sonnet || sonnet == opus {
		t.Errorf("/model did not change the model the CLI asked for: %s, then %s, then %s", first, sonnet, opus)
	}

	// /compact typed at the prompt: working while it runs, then the
	// prompt again (no turn goes on after it).
	p.Type("/compact")
	c := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusIdle)
	if c[0].Tool != event.ToolCompact {
		t.Errorf("working state during /compact: tool %q, want %q", c[0].Tool, event.ToolCompact)
	}
	p.WaitText(10*time.Second, "Compacted", ClaudeIdle)

	// /clear ends the session and starts another in the same pane.
	old := s.ID
	p.Type("/clear")
	g := s.Expect(t, 30*time.Second, event.StatusGone)[0]
	if g.Reason != "clear" {
		t.Errorf("gone state after /clear: reason %q, want clear", g.Reason)
	}
	next := pl.Out.Await(t, "of the session /clear started", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == claude.ID && e.Session != old && e.Session != ""
	})
	if next.Pane != p.ID || next.Status != event.StatusIdle {
		t.Errorf("the session after /clear: pane %q status %q, want %s idle", next.Pane, next.Status, p.ID)
	}
	s2 := pl.Out.Session(claude.ID, next.Session)
	s2.Last = next
	p.WaitText(10*time.Second, ClaudeIdle)
	// Its SessionStart names no model: the window is the one its process
	// runs.
	say(s2, "say cleared")

	// /resume in the TUI switches the process back to the first session.
	p.Type("/resume")
	p.WaitText(10*time.Second, "Resume session", "Enter to resume") // its one row: the first session
	p.Keys("Enter")
	if g := s2.Expect(t, 30*time.Second, event.StatusGone)[0]; g.Reason != "resume" {
		t.Errorf("the session /resume left: reason %q, want resume", g.Reason)
	}
	if b := s.Expect(t, 30*time.Second, event.StatusIdle)[0]; b.Pane != p.ID {
		t.Errorf("the session /resume picked: pane %q, want %s", b.Pane, p.ID)
	}
	p.WaitText(10*time.Second, ClaudeIdle)
	p.Type("/exit")
	s.Expect(t, 30*time.Second, event.StatusGone)

	// The first session resumed in another pane is that session again.
	r := tm.NewPane("resume", h.Project, nil, bin, "--resume", old)
	r.WaitText(60*time.Second, ClaudeIdle)
	back := s.Expect(t, 30*time.Second, event.StatusIdle)[0]
	if back.Pane != r.ID || back.PID != r.PID {
		t.Errorf("resumed session: pane %q pid %d, want %s %d", back.Pane, back.PID, r.ID, r.PID)
	}
	r.Type("say resumed")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	r.WaitText(10*time.Second, "FAKE-REPLY: say resumed")

	// A fork is a new session (its own id and transcript, the history
	// copied in). Claude 2.1.197 starts it with a SessionStart naming the
	// session it forks, so that one shows idle in the fork's pane until
	// the fork speaks as itself; then it is gone again (superseded) and
	// the fork's turns are its own.
	r.Type("/exit")
	s.Expect(t, 30*time.Second, event.StatusGone)
	fk := tm.NewPane("fork", h.Project, nil, bin, "--resume", old, "--fork-session")
	fk.WaitText(60*time.Second, ClaudeIdle)
	pl.Out.Await(t, "idle in the fork's pane", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == claude.ID && e.Pane == fk.ID && e.Status == event.StatusIdle
	})
	ClaudeType(fk, "say forked") // 2.1.332 leaves the fork's first prompt in its composer at times
	forked := pl.Out.Await(t, "of the fork at work", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == claude.ID && e.Pane == fk.ID && e.Status == event.StatusWorking
	})
	if forked.Session == old || forked.Session == s2.ID {
		t.Errorf("the fork works as session %s, want a new one", forked.Session)
	}
	s3 := pl.Out.Session(claude.ID, forked.Session)
	s3.Last = forked
	s3.WaitFor(t, "done", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
	fk.WaitText(10*time.Second, "FAKE-REPLY: say forked")
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == old && st.Status != event.StatusGone {
				return false
			}
		}
		return true
	}, "the original session gone again once the fork runs as itself")

	// Without the hooks, the transcript alone fails the turn too (ag-tail
	// reads the spool beside it: only its own events count here).
	var fails int
	for line := range bytes.Lines([]byte(h.Run(30*time.Second, Bin(t, "ag-tail"), "--once", "--agent", "claude"))) {
		var e event.Event
		if event.Decode(bytes.TrimSpace(line), &e) == nil && e.Kind == event.TurnFail && e.Src == event.SrcLog && e.Session == old {
			fails++
			if !strings.Contains(e.Text, "FAKE-FAIL: the fake refuses") {
				t.Errorf("the transcript's turn.fail: reason %q text %q", e.Reason, e.Text)
			}
		}
	}
	if fails != 1 {
		t.Errorf("ag-tail --once: %d turn.fail events for session %s, want 1", fails, old)
	}
	t.Logf("statuses: %s; after /clear: %s", strings.Join(s.History(), " → "), strings.Join(s2.History(), " → "))
}

// TestClaudeApprovedRuns: through the login pipeline alone (no pane
// detection), a command approved at Claude's prompt is working as soon as
// ag-fold's check finds it running under Claude's process — no hook comes
// until it ends (PostToolUse), and the transcript has nothing in between.
func TestClaudeApprovedRuns(t *testing.T) {
	t.Parallel()
	lw, _ := newClaudeWorld(t, "runs")
	approvedLong(t, lw.p, lw.s, lw.h.Project, "Bash", "1", func() { lw.p.WaitText(10*time.Second, ClaudePermission) })
}
