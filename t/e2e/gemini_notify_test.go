//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/gemini"
	fakegemini "github.com/agwatch/ag/t/fakeapi/gemini"
)

// geminiNotify is Gemini CLI with ag's hooks, the login pipeline with
// desktop notifications (ag-tail --follow | ag-fold | ag-notify --backend
// dbus) on a private bus served by t/notifyd, and ag-keys taking
// ag-notify's output.
type geminiNotify struct {
	notifyRig
	api *fakegemini.Server
	tm  *Tmux
	bin string
}

func newGeminiNotify(t *testing.T, notifyArgs ...string) *geminiNotify {
	t.Helper()
	bin := Install(t, Gemini)
	CheckVersion(t, bin, Gemini.Version)
	h := New(t)
	w := &geminiNotify{notifyRig: notifyRig{h: h}, bin: bin}
	w.api = h.FakeGemini(fakegemini.Options{})
	h.GeminiConfig(false)
	h.StartDBus()
	w.nd = h.StartNotifyd()
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "gemini")
	sock := filepath.Join(h.Root, "tmux.sock")
	w.pl = h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"},
		append([]string{"ag-notify", "--backend", "dbus", "-S", sock}, notifyArgs...))
	w.keys = h.StartKeys(w.pl.Out, "-S", sock)
	w.tm = h.StartTmux()
	return w
}

// session starts Gemini in a pane and follows the session its
// SessionStart hook names.
func (w *geminiNotify) session(t *testing.T, name string) (*Pane, *Session) {
	t.Helper()
	p := w.h.StartGemini(w.tm, name, w.bin)
	st := w.pl.Out.Await(t, "of the session in pane "+p.ID, 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == gemini.ID && e.Pane == p.ID && e.Session != ""
	})
	s := w.pl.Out.Session(gemini.ID, st.Session)
	s.Last = st
	return p, s
}

// wait types RUN: cmd, expects working → waiting(permission,
// run_shell_command, cmd) and returns the wait with its Notify call,
// checked: Gemini's title, the command, Approve and Deny.
func (w *geminiNotify) wait(t *testing.T, p *Pane, s *Session, cmd string) offered {
	t.Helper()
	from := len(w.nd.Calls())
	p.GeminiType("RUN: " + cmd)
	wt := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if wt.Attention != event.AttnPermission || wt.Tool != "run_shell_command" || wt.Text != cmd || wt.Token == "" || wt.Pane != p.ID {
		t.Fatalf("waiting state: attention %q tool %q text %q token %q pane %q; want permission, run_shell_command, %q, a token, %s",
			wt.Attention, wt.Tool, wt.Text, wt.Token, wt.Pane, cmd, p.ID)
	}
	o := w.offer(t, from, wt, p, "Gemini CLI · project", "Needs permission: run_shell_command\n", cmd)
	p.WaitText(10*time.Second, GeminiPermission)
	return o
}

// TestGeminiNotify answers real Gemini CLI permission prompts from the
// desktop notification: Approve pressed on the bus reaches the pane
// through ag-keys as "1" and the command runs; Deny as Escape and it does
// not, the session idle; each wait is notified once and taken back once
// answered; a reply starting with "/" is refused with nothing typed.
func TestGeminiNotify(t *testing.T) {
	t.Parallel()
	w := newGeminiNotify(t)
	h := w.h
	p, s := w.session(t, "approve")
	p.GeminiType("say hello")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)

	t.Log("-- approve from the notification: waiting → Approve (1) → working → done")
	approved := filepath.Join(h.Project, "approved.txt")
	o := w.wait(t, p, s, "echo approved > approved.txt")
	if _, err := os.Stat(approved); err == nil {
		t.Fatal("approved.txt exists before the command was approved")
	}
	k := w.press(t, o, p, "approve")
	if k.Status != "sent" || k.Action != "approve" || k.Text != "1" || k.Pane != p.ID || k.Session != s.ID {
		t.Fatalf("keys event: status %q action %q text %q pane %q session %q reason %q; want sent, approve, 1, %s, %s",
			k.Status, k.Action, k.Text, k.Pane, k.Session, k.Reason, p.ID, s.ID)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(approved); err != nil || string(b) != "approved\n" {
		t.Errorf("the approved command did not run: approved.txt %q, %v", b, err)
	}
	p.WaitText(10*time.Second, "FAKE-DONE: tool result received")
	w.nd.WaitClosed(o.note.ID, 10*time.Second)
	if n := w.notifies(0, "echo approved"); n != 1 {
		t.Errorf("%d notifications with Approve/Deny for the approved wait; want exactly 1", n)
	}

	t.Log("-- deny from the notification: waiting → Deny (Escape) → idle, the command does not run")
	denied := filepath.Join(h.Project, "denied.txt")
	o = w.wait(t, p, s, "echo denied > denied.txt")
	k = w.press(t, o, p, "deny")
	if k.Status != "sent" || k.Action != "deny" || k.Text != "Escape" || k.Pane != p.ID {
		t.Fatalf("keys event: status %q action %q text %q pane %q reason %q; want sent, deny, Escape, %s",
			k.Status, k.Action, k.Text, k.Pane, k.Reason, p.ID)
	}
	s.Expect(t, 30*time.Second, event.StatusIdle)
	p.WaitText(10*time.Second, GeminiDenied)
	if _, err := os.Stat(denied); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}
	w.nd.WaitClosed(o.note.ID, 10*time.Second)
	if slices.Contains(w.nd.Live(), o.note.ID) {
		t.Errorf("notification %d is still shown after the wait was denied", o.note.ID)
	}

	t.Log("-- a reply Gemini would run as a command is refused, nothing typed")
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, p.ID)
		return ok && st.Session == s.ID && st.Status == event.StatusIdle
	}, "the session idle")
	out, err := runKeys(h, w.tm, "reply", "/quit", "--pane", p.ID)
	if err == nil || !strings.Contains(out, `"status":"refused"`) || !strings.Contains(out, "slash command") {
		t.Errorf("ag-keys reply /quit: %v\n%s", err, out)
	}
	// Nothing typed: the composer still shows its placeholder and Gemini
	// runs on (its own redraws of the hooks line aside, the screen is the
	// same).
	time.Sleep(2 * time.Second)
	if now := p.Capture(); strings.Contains(now, "/quit") || !strings.Contains(now, GeminiIdle) || !alive(p.PID) {
		t.Errorf("after a refused reply (pane process alive: %v):\n%s", alive(p.PID), now)
	}
	out, err = runKeys(h, w.tm, "reply", "say replied", "--pane", p.ID)
	if err != nil || !strings.Contains(out, `"status":"sent"`) {
		t.Fatalf("ag-keys reply: %v\n%s", err, out)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: say replied")
	if bad := append(w.pl.Out.Bad(), w.keys.Out.Bad()...); len(bad) > 0 {
		t.Errorf("lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
}

// runKeys runs ag-keys once against the harness's tmux server: its
// output and error (exit 1 is a refusal).
func runKeys(h *Harness, tm *Tmux, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, Bin(h.T, "ag-keys"), append([]string{"-S", tm.Socket}, args...)...)
	cmd.Env, cmd.Dir = h.Environ(), h.Project
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestGeminiNotifyLatency measures how long a real Gemini CLI wait takes
// to become a desktop notification: from the Notification (ToolPermission)
// hook's `wait` event (its t in the spool, stamped when ag-hook ran) to
// notifyd receiving the Notify call, through ag-tail --follow, ag-fold and
// ag-notify. --cooldown 0: every wait of the one session is notified.
func TestGeminiNotifyLatency(t *testing.T) {
	const waits = 6
	w := newGeminiNotify(t, "--cooldown", "0")
	h := w.h
	p, s := w.session(t, "latency")
	p.GeminiType("say hello")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	var lat []time.Duration
	for i := range waits {
		cmd := fmt.Sprintf("echo wait%d > wait%d.txt", i, i)
		o := w.wait(t, p, s, cmd)
		hook := spoolWaitIn(t, h, s.ID, cmd)
		lat = append(lat, o.note.Time().Sub(hook.T.Time))
		if k := w.press(t, o, p, "approve"); k.Status != "sent" || k.Text != "1" {
			t.Fatalf("wait %d: keys %q %q %q", i, k.Status, k.Text, k.Reason)
		}
		s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
		if b, err := os.ReadFile(filepath.Join(h.Project, fmt.Sprintf("wait%d.txt", i))); err != nil || string(b) != fmt.Sprintf("wait%d\n", i) {
			t.Errorf("wait %d: the approved command did not run: %q, %v", i, b, err)
		}
		t.Logf("wait %d: hook → Notify %s", i, lat[i].Round(100*time.Microsecond))
	}
	median, line := latencies("Gemini hook `wait` → Notify received", lat)
	t.Log(line)
	if median >= 100*time.Millisecond {
		t.Errorf("median hook → Notify latency %s; budget < 100ms", median)
	}
}

// spoolWaitIn is the hook wait event for cmd in the harness's spool.
func spoolWaitIn(t *testing.T, h *Harness, session, cmd string) event.Event {
	t.Helper()
	return (&notifyWorld{h: h}).spoolWait(t, session, cmd)
}
