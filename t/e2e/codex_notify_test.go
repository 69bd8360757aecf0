//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// codexNotify is Codex with ag's hooks, the login pipeline with desktop
// notifications (ag-tail --follow | ag-fold | ag-notify --backend dbus) on
// a private bus served by t/notifyd, and ag-keys taking ag-notify's output.
type codexNotify struct {
	notifyRig
	api *openai.Server
	tm  *Tmux
	bin string
}

func newCodexNotify(t *testing.T) *codexNotify {
	t.Helper()
	bin := Install(t, Codex)
	CheckVersion(t, bin, Codex.Version)
	h := New(t)
	w := &codexNotify{notifyRig: notifyRig{h: h}, bin: bin}
	w.api = h.FakeOpenAI(openai.Options{})
	h.CodexConfig(bin, w.api)
	h.StartDBus()
	w.nd = h.StartNotifyd()
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "codex")
	sock := filepath.Join(h.Root, "tmux.sock")
	w.pl = h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"},
		[]string{"ag-notify", "--backend", "dbus", "-S", sock})
	w.keys = h.StartKeys(w.pl.Out, "-S", sock)
	w.tm = h.StartTmux()
	return w
}

// session starts Codex in a pane and runs one plain turn there: Codex
// names its session only once a prompt is sent.
func (w *codexNotify) session(t *testing.T, name string) (*Pane, *Session) {
	t.Helper()
	p := w.h.StartCodex(w.tm, name, w.bin)
	p.Type("hello from " + name)
	st := w.pl.Out.Await(t, "done in pane "+p.ID, 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == codex.ID && e.Pane == p.ID && e.Status == event.StatusDone
	})
	// Let the rollout's copy of the turn's end land, then start every
	// session's status sequence from here.
	time.Sleep(500 * time.Millisecond)
	w.pl.Out.Skip()
	s := w.pl.Out.Session(codex.ID, st.Session)
	s.Last = st
	return p, s
}

// wait types RUN: cmd, expects working → waiting(permission, Bash, cmd),
// and returns the wait with its one Notify call, checked.
func (w *codexNotify) wait(t *testing.T, p *Pane, s *Session, cmd string) offered {
	t.Helper()
	from := len(w.nd.Calls())
	p.Type("RUN: " + cmd)
	wt := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if wt.Attention != event.AttnPermission || wt.Tool != "Bash" || wt.Text != cmd || wt.Token == "" || wt.Pane != p.ID {
		t.Fatalf("waiting state: attention %q tool %q text %q token %q pane %q; want permission, Bash, %q, a token, %s",
			wt.Attention, wt.Tool, wt.Text, wt.Token, wt.Pane, cmd, p.ID)
	}
	o := w.offer(t, from, wt, p, "Codex · project", "Needs permission: Bash\n", cmd)
	p.WaitText(10*time.Second, CodexPermission)
	return o
}

// TestCodexNotify answers real Codex approval prompts from the desktop
// notification: Approve pressed on the bus reaches the pane through
// ag-keys as Enter and the command runs; Deny as Escape and it does not;
// a press after the session moved on is refused with nothing typed; each
// wait is notified once.
func TestCodexNotify(t *testing.T) {
	t.Parallel()
	w := newCodexNotify(t)
	h := w.h
	pa, sa := w.session(t, "approve")
	pd, sd := w.session(t, "deny")

	t.Log("-- approve from the notification: waiting → Approve (Enter) → working → done")
	approved := filepath.Join(h.Project, "approved.txt")
	o := w.wait(t, pa, sa, "echo approved > approved.txt")
	// Left a moment unanswered: still one notification.
	time.Sleep(2 * time.Second)
	if _, err := os.Stat(approved); err == nil {
		t.Fatal("approved.txt exists before the command was approved")
	}
	k := w.press(t, o, pa, "approve")
	if k.Status != "sent" || k.Action != "approve" || k.Text != "Enter" || k.Pane != pa.ID || k.Session != sa.ID {
		t.Fatalf("keys event: status %q action %q text %q pane %q session %q reason %q; want sent, approve, Enter, %s, %s",
			k.Status, k.Action, k.Text, k.Pane, k.Session, k.Reason, pa.ID, sa.ID)
	}
	sa.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(approved); err != nil || string(b) != "approved\n" {
		t.Errorf("the approved command did not run: approved.txt %q, %v", b, err)
	}
	pa.WaitText(10*time.Second, "FAKE-DONE: tool result received")
	w.nd.WaitClosed(o.note.ID, 10*time.Second)
	if slices.Contains(w.nd.Live(), o.note.ID) {
		t.Errorf("notification %d is still shown after the wait was answered", o.note.ID)
	}
	if n := w.notifies(0, "echo approved"); n != 1 {
		t.Errorf("%d notifications with Approve/Deny for the approved wait; want exactly 1", n)
	}

	t.Log("-- a stale press: refused, nothing typed")
	w.h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, pa.ID)
		return ok && st.Status == event.StatusDone && st.Token != o.wait.Token
	}, "the approved session done under a new token")
	time.Sleep(time.Second)
	screen := paneCapture(w.tm, pa)
	requests, keys := len(w.api.Requests()), len(w.keys.Out.Events())
	w.nd.EmitAction(o.note.ID, "approve") // the closed notification's button, reported again
	late := event.New(event.Action, time.Now(), codex.ID, o.wait.Session)
	late.Src, late.Pane, late.Action, late.Token, late.Attention, late.Backend = event.SrcNotify, pa.ID, "approve", o.wait.Token, o.wait.Attention, "ntfy"
	late.ID = event.MakeID(event.SrcNotify, "e2e late press", o.wait.Session, o.wait.Token)
	w.keys.Inject(t, event.Marshal(&late)) // a second backend's late press
	k = w.keys.Out.WaitFor(t, "keys for the stale press", 10*time.Second, func(e *event.Event) bool { return e.Kind == event.Keys })
	if k.Status != "refused" || k.Token != o.wait.Token || !strings.HasPrefix(k.Reason, "stale: the session moved on") || k.Text != "" {
		t.Errorf("stale press: keys status %q token %q reason %q text %q; want refused, %s, \"stale: the session moved on ...\", nothing typed",
			k.Status, k.Token, k.Reason, k.Text, o.wait.Token)
	}
	time.Sleep(2 * time.Second)
	if n := len(w.keys.Out.Events()); n != keys+1 {
		t.Errorf("ag-keys wrote %d keys events after the stale presses; want 1 (the refusal):\n%s", n-keys, w.keys.Out.Text())
	}
	if now := paneCapture(w.tm, pa); now != screen {
		t.Errorf("the pane changed after the stale presses:\nbefore:\n%s\nafter:\n%s", screen, now)
	}
	if n := len(w.api.Requests()); n != requests {
		t.Errorf("Codex sent %d more API requests after the stale presses", n-requests)
	}

	t.Log("-- deny from the notification: waiting → Deny (Escape) → idle, the command does not run")
	denied := filepath.Join(h.Project, "denied.txt")
	o = w.wait(t, pd, sd, "echo denied > denied.txt")
	k = w.press(t, o, pd, "deny")
	if k.Status != "sent" || k.Action != "deny" || k.Text != "Escape" || k.Pane != pd.ID {
		t.Fatalf("keys event: status %q action %q text %q pane %q reason %q; want sent, deny, Escape, %s",
			k.Status, k.Action, k.Text, k.Pane, k.Reason, pd.ID)
	}
	sd.Expect(t, 30*time.Second, event.StatusIdle)
	pd.WaitText(10*time.Second, CodexDenied)
	if _, err := os.Stat(denied); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}
	w.nd.WaitClosed(o.note.ID, 10*time.Second)
	if slices.Contains(w.nd.Live(), o.note.ID) {
		t.Errorf("notification %d is still shown after the wait was denied", o.note.ID)
	}
	if n := w.notifies(0, "echo denied"); n != 1 {
		t.Errorf("%d notifications with Approve/Deny for the denied wait; want exactly 1", n)
	}
	if bad := append(w.pl.Out.Bad(), w.keys.Out.Bad()...); len(bad) > 0 {
		t.Errorf("lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
	if b, _ := os.ReadFile(w.pl.Stages[2].Stderr); len(b) > 0 {
		t.Errorf("ag-notify wrote to stderr:\n%s", b)
	}
}
