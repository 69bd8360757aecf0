//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/copilot"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// copilotNotify is Copilot CLI with ag's hooks, the login pipeline with
// desktop notifications (ag-tail --follow | ag-fold | ag-notify --backend
// dbus) on a private bus served by t/notifyd, and ag-keys taking
// ag-notify's output.
type copilotNotify struct {
	notifyRig
	tm  *Tmux
	bin string
	p   *Pane
	s   *Session
}

func newCopilotNotify(t *testing.T, notifyArgs ...string) *copilotNotify {
	t.Helper()
	bin := Install(t, Copilot)
	CheckVersion(t, bin, Copilot.Version)
	h := New(t)
	w := &copilotNotify{notifyRig: notifyRig{h: h}, bin: bin}
	h.CopilotConfig(t, h.FakeChat(chat.Options{}), false)
	h.StartDBus()
	w.nd = h.StartNotifyd()
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "copilot")
	sock := filepath.Join(h.Root, "tmux.sock")
	w.pl = h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"},
		append([]string{"ag-notify", "--backend", "dbus", "-S", sock}, notifyArgs...))
	w.keys = h.StartKeys(w.pl.Out, "-S", sock)
	w.tm = h.StartTmux()
	w.p = h.StartCopilot(w.tm, "copilot", bin)
	w.s = w.pl.Out.Session(copilot.ID, "")
	return w
}

// typeIn types prompt once the composer takes keys again.
func (w *copilotNotify) typeIn(prompt string) {
	w.p.WaitText(30*time.Second, CopilotIdle)
	time.Sleep(time.Second)
	w.p.Type(prompt)
}

// wait types RUN: cmd, expects working → waiting(permission, shell, cmd)
// and returns the wait with its Notify call, checked: Copilot's title,
// the command, Approve and Deny.
func (w *copilotNotify) wait(t *testing.T, cmd string) offered {
	t.Helper()
	from := len(w.nd.Calls())
	w.typeIn("RUN: " + cmd)
	wt := w.s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if wt.Attention != event.AttnPermission || wt.Tool != "shell" || wt.Text != cmd || wt.Token == "" || wt.Pane != w.p.ID {
		t.Fatalf("waiting state: attention %q tool %q text %q token %q pane %q; want permission, shell, %q, a token, %s",
			wt.Attention, wt.Tool, wt.Text, wt.Token, wt.Pane, cmd, w.p.ID)
	}
	o := w.offer(t, from, wt, w.p, "Copilot CLI · project", "Needs permission: shell\n", cmd)
	w.p.WaitText(10*time.Second, CopilotPermission)
	return o
}

// TestCopilotNotify answers real Copilot CLI dialogs from the desktop
// notification: Approve pressed on the bus reaches the pane through
// ag-keys as "1" and the command runs; Deny as Escape and it does not, the
// session idle; a plan review offers its own pair and Approve types the
// digit of the Interactive row read from the pane; a question is notified
// with a reply and a button per choice, and the second's button picks it. Each wait is notified once and taken back once
// answered (--cooldown 0: the question and the plan come within a
// minute).
func TestCopilotNotify(t *testing.T) {
	t.Parallel()
	w := newCopilotNotify(t, "--cooldown", "0")
	h, p, s := w.h, w.p, w.s
	w.typeIn("say hello")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)

	t.Log("-- approve from the notification: waiting → Approve (1) → working → done")
	o := w.wait(t, "echo approved > approved.txt")
	k := w.press(t, o, p, "approve")
	if k.Status != "sent" || k.Action != "approve" || k.Text != "1" || k.Pane != p.ID || k.Session != s.ID {
		t.Fatalf("keys event: status %q action %q text %q pane %q session %q reason %q; want sent, approve, 1, %s, %s",
			k.Status, k.Action, k.Text, k.Pane, k.Session, k.Reason, p.ID, s.ID)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "approved.txt")); err != nil || string(b) != "approved\n" {
		t.Errorf("the approved command did not run: %q, %v", b, err)
	}
	w.nd.WaitClosed(o.note.ID, 10*time.Second)
	if n := w.notifies(0, "echo approved"); n != 1 {
		t.Errorf("%d notifications with Approve/Deny for the approved wait; want exactly 1", n)
	}

	t.Log("-- deny from the notification: waiting → Deny (Escape) → idle, the command does not run")
	o = w.wait(t, "echo denied > denied.txt")
	k = w.press(t, o, p, "deny")
	if k.Status != "sent" || k.Action != "deny" || k.Text != "Escape" || k.Pane != p.ID {
		t.Fatalf("keys event: status %q action %q text %q pane %q reason %q; want sent, deny, Escape, %s",
			k.Status, k.Action, k.Text, k.Pane, k.Reason, p.ID)
	}
	s.Expect(t, 60*time.Second, event.StatusIdle)
	p.WaitAnyText(10*time.Second, CopilotCancelled, CopilotAborted)
	if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}
	w.nd.WaitClosed(o.note.ID, 10*time.Second)
	if slices.Contains(w.nd.Live(), o.note.ID) {
		t.Errorf("notification %d is still shown after the wait was denied", o.note.ID)
	}

	t.Log("-- a question: its choices in the state, a button each and a reply; the second's button picks it")
	from := len(w.nd.Calls())
	w.typeIn(`CALL: ask_user {"message":"Which colour?","requestedSchema":{"properties":{"colour":{"type":"string","enum":["Blue","Green"]}}}}`)
	q := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	o = w.offerWith(t, from, q, p, "Copilot CLI · project", "Has a question", "Which colour?")
	if q.Attention != event.AttnQuestion || !slices.Equal(q.Options, []string{"Blue", "Green"}) || !slices.Contains(o.note.Actions, "inline-reply") || slices.Contains(o.note.Buttons(), "approve") {
		t.Errorf("question: attention %q options %q, Notify actions %q; want question, [Blue Green], a reply, no Approve", q.Attention, q.Options, o.note.Actions)
	}
	p.WaitText(10*time.Second, CopilotQuestion)
	if k := w.pressOption(t, o, p, 2, "Green"); k.Status != "sent" || k.Text != "Down, 30ms, Enter" {
		t.Errorf("keys event: status %q text %q reason %q; want sent, Down, 30ms, Enter", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "└ Green")
	w.nd.WaitClosed(o.note.ID, 10*time.Second)

	t.Log("-- a plan review: Approve types the Interactive row's digit, read from the pane")
	w.p.WaitText(30*time.Second, CopilotIdle)
	time.Sleep(time.Second)
	p.Keys("BTab")
	p.WaitText(10*time.Second, "· Plan ·")
	from = len(w.nd.Calls())
	w.typeIn(`CALL: exit_plan_mode {"summary":"- write plan.txt","recommendedAction":"autopilot"}`)
	pl := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if pl.Attention != event.AttnPlan {
		t.Errorf("plan wait: attention %q", pl.Attention)
	}
	o = w.offerPlan(t, from, pl)
	// recommendedAction autopilot puts the Interactive row second.
	p.WaitText(10*time.Second, CopilotPlan, "2. Accept plan and continue in Interactive")
	k = w.press(t, o, p, "plan-approve")
	if k.Status != "sent" || k.Action != "plan-approve" || k.Text != "2" {
		t.Fatalf("keys event: status %q action %q text %q reason %q; want sent, plan-approve, 2", k.Status, k.Action, k.Text, k.Reason)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "· Interactive ·")
	w.nd.WaitClosed(o.note.ID, 10*time.Second)
	if bad := append(w.pl.Out.Bad(), w.keys.Out.Bad()...); len(bad) > 0 {
		t.Errorf("lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
}

// offerPlan is the Notify call of plan wait wt: "Plan ready for review"
// with the plan-approve/plan-deny pair.
func (w *copilotNotify) offerPlan(t *testing.T, from int, wt event.Event) offered {
	t.Helper()
	n, i := w.nd.WaitCall(from, "Notify for the plan", 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, "write plan.txt")
	})
	if !strings.HasPrefix(n.Body, "Plan ready for review") || !slices.Contains(n.Buttons(), "plan-approve") || !slices.Contains(n.Buttons(), "plan-deny") {
		t.Errorf("plan Notify body %q buttons %q; want Plan ready for review…, plan-approve plan-deny", n.Body, n.Buttons())
	}
	w.pl.Out.Await(t, "notify deliver for token "+wt.Token, 10*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Notify && e.Action == "deliver" && e.Token == wt.Token
	})
	return offered{wait: wt, note: n, index: i}
}

// TestCopilotNotifyLatency measures how long a real Copilot CLI wait takes
// to become a desktop notification: from the notification hook's
// (permission_prompt) `wait` event (its t in the spool, stamped when
// ag-hook ran) to notifyd receiving the Notify call, through ag-tail
// --follow, ag-fold and ag-notify. --cooldown 0: every wait of the one
// session is notified.
func TestCopilotNotifyLatency(t *testing.T) {
	const waits = 6
	w := newCopilotNotify(t, "--cooldown", "0")
	h, p, s := w.h, w.p, w.s
	w.typeIn("say hello")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	var lat []time.Duration
	for i := range waits {
		cmd := fmt.Sprintf("echo wait%d > wait%d.txt", i, i)
		o := w.wait(t, cmd)
		hook := spoolWaitIn(t, h, s.ID, cmd)
		lat = append(lat, o.note.Time().Sub(hook.T.Time))
		if k := w.press(t, o, p, "approve"); k.Status != "sent" || k.Text != "1" {
			t.Fatalf("wait %d: keys %q %q %q", i, k.Status, k.Text, k.Reason)
		}
		s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
		if b, err := os.ReadFile(filepath.Join(h.Project, fmt.Sprintf("wait%d.txt", i))); err != nil || string(b) != fmt.Sprintf("wait%d\n", i) {
			t.Errorf("wait %d: the approved command did not run: %q, %v", i, b, err)
		}
		t.Logf("wait %d: hook → Notify %s", i, lat[i].Round(100*time.Microsecond))
	}
	median, line := latencies("Copilot hook `wait` → Notify received", lat)
	t.Log(line)
	if median >= 100*time.Millisecond {
		t.Errorf("median hook → Notify latency %s; budget < 100ms", median)
	}
}
