package fold

import (
	"testing"

	"github.com/agwatch/ag/filters/event"
)

func bg(job string) opt { return func(e *event.Event) { e.Where, e.Job = event.WhereBackground, job } }
func mode(m string) opt { return func(e *event.Event) { e.Mode = m } }
func noSession() opt    { return func(e *event.Event) { e.Session = "" } }
func placed(e event.Event) string {
	return e.Status + " pane=" + e.Pane + " where=" + e.Where + " job=" + e.Job
}

// TestBackgroundSession: a Claude Code background session (its hooks say
// where: background and the job) has no pane; a viewer (claude attach in
// a pane, from ag-detect) lends it that pane while it runs, its pid never
// becomes the session's, and its end leaves the session as it was.
func TestBackgroundSession(t *testing.T) {
	f := newFolder(t)
	f.apply(
		ev(event.SessionStart, hook, 1, bg("5db6b5b0"), pid(10290), tty("/dev/pts/3")),
		ev(event.TurnStart, hook, 2, bg("5db6b5b0"), pid(10290), run("p1"), mode("manual")),
		ev(event.Wait, hook, 3, bg("5db6b5b0"), pid(10290), attn("permission"), tool("Bash", ""), text("make")),
	)
	st := f.state()
	if got := placed(st); got != "waiting pane= where=background job=5db6b5b0" || st.PID != 10290 || st.Mode != "manual" {
		t.Fatalf("background wait: %s pid %d mode %q", got, st.PID, st.Mode)
	}
	// claude attach 5db6b5b0 in pane %7 (pid 22745): the session's pane.
	f.apply(ev(event.ProcUp, proc, 4, bg("5db6b5b0"), pane("%7"), pid(22745), tty("/dev/pts/9")))
	st = f.state()
	if got := placed(st); got != "waiting pane=%7 where=background job=5db6b5b0" || st.PID != 10290 || st.TTY != "/dev/pts/3" {
		t.Fatalf("attached: %s pid %d tty %s", got, st.PID, st.TTY)
	}
	// The viewer's screen (no session named) is the session's.
	f.apply(ev(event.Wait, pn, 4.5, noSession(), bg("5db6b5b0"), pane("%7"), pid(22745), attn("permission"), tool("Bash", ""), text("make")))
	if st = f.state(); st.PID != 10290 || st.Status != event.StatusWaiting {
		t.Fatalf("viewer's screen: %s pid %d", placed(st), st.PID)
	}
	// A hook of the session itself keeps the viewer's pane.
	f.apply(ev(event.ToolEnd, hook, 5, bg("5db6b5b0"), pid(10290), tool("Bash", "")))
	if got := placed(f.state()); got != "working pane=%7 where=background job=5db6b5b0" {
		t.Fatalf("approved while attached: %s", got)
	}
	// Detached: the pane goes, the session stays.
	f.apply(ev(event.ProcDown, proc, 6, bg("5db6b5b0"), pane("%7"), pid(22745)))
	st = f.state()
	if got := placed(st); got != "working pane= where=background job=5db6b5b0" || st.PID != 10290 {
		t.Fatalf("detached: %s pid %d", got, st.PID)
	}
	// Resumed in a terminal (claude --resume after claude stop): a pane's.
	f.apply(ev(event.SessionStart, hook, 8, pid(31000), pane("%9")))
	if got := placed(f.state()); got != "working pane=%9 where= job=" {
		t.Fatalf("resumed in a pane: %s", got)
	}
}

// TestBackgroundMovedFromPane: a session moved to the background (← in
// its pane) leaves the pane it ran in.
func TestBackgroundMovedFromPane(t *testing.T) {
	f := newFolder(t)
	f.apply(ev(event.TurnStart, hook, 1, pid(100), pane("%3")))
	f.apply(ev(event.TurnEnd, hook, 2, pid(200), bg("abcd1234")))
	if st := f.state(); st.Pane != "" || st.Where != event.WhereBackground || st.PID != 200 {
		t.Errorf("moved to the background: %s pid %d", placed(st), st.PID)
	}
}

// TestAutoModeHold: auto mode's hold before an action it cannot check is a
// permission wait about the call in flight; the action's own prompt after
// it (a Notification naming no tool) is a new wait, with a new token.
func TestAutoModeHold(t *testing.T) {
	f := newFolder(t)
	f.apply(
		ev(event.TurnStart, hook, 1, run("p1"), mode("auto")),
		ev(event.ToolStart, hook, 2, tool("Bash", "toolu_1"), text("rm -rf build")),
		ev(event.Wait, hook, 3, attn("permission"), text("Auto mode can't check actions in this session and needs your choice"), reason(event.ReasonUnchecked)),
	)
	hold := f.state()
	if hold.Status != event.StatusWaiting || hold.Tool != "Bash" || hold.ToolID != "toolu_1" || hold.Text != "rm -rf build" ||
		hold.Reason != event.ReasonUnchecked || hold.Mode != "auto" {
		t.Fatalf("hold: %s", event.Marshal(&hold))
	}
	f.apply(ev(event.Wait, hook, 9, attn("permission"), text("Claude needs your permission")))
	prompt := f.state()
	if prompt.Status != event.StatusWaiting || prompt.Tool != "Bash" || prompt.Text != "rm -rf build" || prompt.Reason != "" ||
		prompt.Token == hold.Token {
		t.Fatalf("the action's prompt after the hold: %s (hold token %s)", event.Marshal(&prompt), hold.Token)
	}
	// Its repeat says nothing new.
	f.apply(ev(event.Wait, hook, 15, attn("permission"), text("Claude needs your permission")))
	if again := f.state(); again.Token != prompt.Token {
		t.Errorf("a repeated notification moved the token: %s → %s", prompt.Token, again.Token)
	}
	f.apply(ev(event.ToolEnd, hook, 16, tool("Bash", "toolu_1")))
	if st := f.state(); st.Status != event.StatusWorking {
		t.Errorf("approved: %s", st.Status)
	}
}

// TestAutoModePromptNoRequest: a prompt auto mode puts to the user with no
// PermissionRequest (a flagged call, one after a refusal) names no tool:
// it is the call in flight's.
func TestAutoModePromptNoRequest(t *testing.T) {
	f := newFolder(t)
	f.apply(
		ev(event.TurnStart, hook, 1, run("p1")),
		ev(event.ToolStart, hook, 2, tool("Bash", "toolu_2"), text("curl x | sh")),
		ev(event.Wait, hook, 8, attn("permission"), text("Claude needs your permission")),
	)
	if st := f.state(); st.Tool != "Bash" || st.ToolID != "toolu_2" || st.Text != "curl x | sh" {
		t.Errorf("wait: %s", event.Marshal(&st))
	}
}

// TestAutoModeBlocked: a call auto mode refused ends (blocked) and the
// turn goes on.
func TestAutoModeBlocked(t *testing.T) {
	f := newFolder(t)
	f.apply(
		ev(event.TurnStart, hook, 1, run("p1")),
		ev(event.ToolStart, hook, 2, tool("Bash", "toolu_3"), text("rm -rf /")),
		ev(event.ToolEnd, hook, 2.1, tool("Bash", "toolu_3"), reason(event.ReasonBlocked), text("Deletes everything.")),
	)
	if st := f.state(); st.Status != event.StatusWorking || st.Tool != "" {
		t.Errorf("blocked call: %s tool %q", st.Status, st.Tool)
	}
	f.apply(ev(event.TurnEnd, hook, 3, run("p1"), text("I could not do that.")))
	if st := f.state(); st.Status != event.StatusDone {
		t.Errorf("turn end: %s", st.Status)
	}
}

// TestModeFollowsHooks: the mode is the last one a main-thread hook said.
func TestModeFollowsHooks(t *testing.T) {
	f := newFolder(t)
	f.apply(ev(event.TurnStart, hook, 1, mode("auto")))
	f.apply(ev(event.ToolStart, hook, 2, sub("a1"), mode("plan"), tool("Read", "t")))
	if got := f.state().Mode; got != "auto" {
		t.Errorf("a sub-agent's mode: %q", got)
	}
	f.apply(ev(event.TurnStart, hook, 3, mode("plan")))
	f.apply(ev(event.Meter, log, 4, toks(1, 1)))
	if got := f.state().Mode; got != "plan" {
		t.Errorf("mode %q, want plan", got)
	}
}

// TestSubWaitOutlivesTurn: Claude Code 2.1.332 runs a sub-agent in the
// background; its prompt can come before the main turn's Stop (with the
// agent pending). The session still waits on that prompt, and its answer
// leaves it working for the background agent.
func TestSubWaitOutlivesTurn(t *testing.T) {
	f := newFolder(t)
	f.apply(
		ev(event.TurnStart, hook, 1, run("p1")),
		ev(event.ToolStart, hook, 2, sub("a1"), tool("Bash", "toolu_s")),
		ev(event.Wait, hook, 2.2, sub("a1"), attn("permission"), tool("Bash", ""), text("echo sub")),
		ev(event.TurnEnd, hook, 2.3, run("p1"), pending(1)),
		ev(event.Wait, hook, 8, attn("permission"), text("Claude needs your permission")),
	)
	w := f.state()
	if w.Status != event.StatusWaiting || w.Sub != "a1" || w.Text != "echo sub" {
		t.Fatalf("after the Stop and the Notification: %s", event.Marshal(&w))
	}
	f.apply(ev(event.ToolEnd, hook, 9, sub("a1"), tool("Bash", "toolu_s")))
	st := f.state()
	if st.Status != event.StatusWorking || st.Pending != 1 || st.Text != "waiting for 1 background agent" {
		t.Fatalf("answered: %s", event.Marshal(&st))
	}
	f.apply(ev(event.TurnEnd, hook, 10, sub("a1")))
	f.apply(ev(event.TurnEnd, hook, 11, run("p2"), text("done")))
	if st := f.state(); st.Status != event.StatusDone {
		t.Fatalf("the resumed turn's end: %s", event.Marshal(&st))
	}
}

// TestAutoModeHoldSeenFirst: with ag-detect, the pane shows the hold
// before its hook says so: a wait about the call in flight, marked
// unchecked once the hook comes, and the action's prompt after it a new
// wait.
func TestAutoModeHoldSeenFirst(t *testing.T) {
	f := newFolder(t)
	f.apply(
		ev(event.TurnStart, hook, 1, run("p1"), pane("%3"), pid(100)),
		ev(event.ToolStart, hook, 2, tool("Bash", "toolu_1"), text("rm -rf /srv/x"), pane("%3"), pid(100)),
		ev(event.Wait, pn, 2.5, noSession(), pane("%3"), pid(100), attn("permission"), text("rm -rf /srv/x")),
	)
	seen := f.state()
	if seen.Status != event.StatusWaiting || seen.Tool != "Bash" || seen.ToolID != "toolu_1" {
		t.Fatalf("the pane's hold: %s", event.Marshal(&seen))
	}
	f.apply(ev(event.Wait, hook, 8, attn("permission"), text("Auto mode can't check actions in this session and needs your choice"), reason(event.ReasonUnchecked)))
	hold := f.state()
	if hold.Reason != event.ReasonUnchecked || hold.Token != seen.Token {
		t.Fatalf("the hold's hook: %s (was %s)", event.Marshal(&hold), seen.Token)
	}
	f.apply(ev(event.Wait, hook, 15, attn("permission"), text("Claude needs your permission")))
	if p := f.state(); p.Token == hold.Token || p.Reason != "" || p.Tool != "Bash" {
		t.Fatalf("the action's prompt: %s", event.Marshal(&p))
	}
}
