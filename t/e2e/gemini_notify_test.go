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
	"syscall"
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

// session starts Gemini (with args) in a pane and follows the session
// its SessionStart hook names.
func (w *geminiNotify) session(t *testing.T, name string, args ...string) (*Pane, *Session) {
	t.Helper()
	p := w.h.StartGemini(w.tm, name, w.bin, args...)
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

// doneIn waits for the state file, which ag-keys reads, to hold st (a
// moment after ag-fold wrote it on stdout).
func doneIn(t *testing.T, h *Harness, p *Pane, st event.Event) {
	t.Helper()
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		cur, ok := state.ForPane(states, p.ID)
		return ok && cur.Token == st.Token
	}, "the token "+st.Token)
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

// TestGeminiNotifyWaits answers a real Gemini CLI's question and plan from
// their desktop notifications: the question ("Has a question", a button
// per option) with the banner's reply, typed as an answer, and again with
// its second option's button; the plan ("Plan ready for review", the
// plan's text, Approve plan and Keep planning) refused with Keep planning
// (Escape: still planning) and approved with Approve plan ("2": edits
// still asked about). Gemini runs in plan mode from the start
// (--approval-mode plan).
func TestGeminiNotifyWaits(t *testing.T) {
	t.Parallel()
	w := newGeminiNotify(t)
	p, s := w.session(t, "waits", "--approval-mode", "plan")
	p.WaitText(10*time.Second, GeminiPlanMode)

	t.Log("-- the question: Has a question → the reply typed as the answer")
	from := len(w.nd.Calls())
	wt := askColour(t, p, s)
	o := w.offerWith(t, from, wt, p, "Gemini CLI · project", "Has a question\n", "Which colour")
	if !slices.Contains(o.note.Actions, "inline-reply") || slices.Contains(o.note.Buttons(), "approve") {
		t.Errorf("question notification actions %q; want a reply and no Approve", o.note.Actions)
	}
	k := w.reply(t, o, p, "answer", "Green, but darker")
	if k.Status != "sent" || k.Action != "answer" || k.Text != `paste "Green, but darker", 150ms, Enter once shown` {
		t.Fatalf("keys event: status %q action %q text %q reason %q", k.Status, k.Action, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "Colour → Green, but darker")
	if r := lastResult(w.api, "ask_user"); !strings.Contains(r, `"Green, but darker"`) {
		t.Errorf("the model got %q for the question", r)
	}

	t.Log("-- the question again: its second option's button → 2")
	from = len(w.nd.Calls())
	wt = askColour(t, p, s)
	// Not the first question's done notification, whose body quotes it.
	o = w.offerWith(t, from, wt, p, "Gemini CLI · project", "Has a question\n", "Has a question\nWhich colour")
	if k := w.pressOption(t, o, p, 2, "Green"); k.Status != "sent" || k.Text != "2" {
		t.Fatalf("keys event: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if r := lastResult(w.api, "ask_user"); !strings.Contains(r, `"Green"`) || strings.Contains(r, "darker") {
		t.Errorf("the model got %q for the question; want the option Green", r)
	}

	t.Log("-- the plan, written in plan mode")
	writePlan(t, p, s)
	offerPlan := func() offered {
		t.Helper()
		from := len(w.nd.Calls())
		p.GeminiType(`CALL: exit_plan_mode {"plan_filename":"colour.md"}`)
		wt := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
		if wt.Attention != event.AttnPlan || wt.Text != geminiPlan {
			t.Errorf("waiting state: attention %q text %q; want plan, the plan", wt.Attention, wt.Text)
		}
		o := w.offerWith(t, from, wt, p, "Gemini CLI · project", "Plan ready for review\n", "Plan: paint it",
			[2]string{"plan-approve", "Approve plan"}, [2]string{"plan-deny", "Keep planning"})
		p.WaitText(10*time.Second, GeminiPlan)
		return o
	}

	t.Log("-- Deny: Escape, idle, still planning")
	o = offerPlan()
	if k := w.press(t, o, p, "plan-deny"); k.Status != "sent" || k.Text != "Escape" {
		t.Fatalf("keys event: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusIdle)
	p.WaitText(10*time.Second, GeminiDenied, GeminiPlanMode)

	t.Log("-- Approve: 2, the plan approved, default mode")
	o = offerPlan()
	if k := w.press(t, o, p, "plan-approve"); k.Status != "sent" || k.Text != "2" {
		t.Fatalf("keys event: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "Plan approved", GeminiDefault)
	if r := lastResult(w.api, "exit_plan_mode"); !strings.Contains(r, "Plan approved. Switching to Default mode") {
		t.Errorf("the model got %q for the plan", r)
	}
	w.nd.WaitClosed(o.note.ID, 10*time.Second)
}

// TestGeminiReplyAtOnce replies to a real Gemini CLI the moment its turn
// is done — from the done notification's reply (ag-notify with no
// debounce) and with ag-keys on the command line — while the hooks of
// that turn may still run, when Gemini can read the Enter as a newline:
// every reply is sent and answered, ag-keys pressing Enter again where
// the reply sat in the composer.
func TestGeminiReplyAtOnce(t *testing.T) {
	t.Parallel()
	const rounds = 4
	w := newGeminiNotify(t, "--debounce", "0", "--cooldown", "0")
	h := w.h
	p, s := w.session(t, "at-once")
	p.GeminiType("say hello")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	again := 0
	check := func(k event.Event, text string) {
		t.Helper()
		if k.Status != "sent" {
			t.Fatalf("keys event: status %q text %q reason %q", k.Status, k.Text, k.Reason)
		}
		if strings.Contains(k.Reason, "Enter again") {
			again++
		}
		s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
		p.WaitText(10*time.Second, "FAKE-REPLY: "+text)
	}
	for i := range rounds {
		text := fmt.Sprintf("notified reply %d", i)
		from := len(w.nd.Calls())
		p.GeminiType(fmt.Sprintf("say round %d", i))
		done := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)[1]
		o := w.offerWith(t, from, done, p, "Gemini CLI · project", "Finished\n", fmt.Sprintf("say round %d", i))
		k := w.reply(t, o, p, "reply", text)
		check(k, text)
	}
	for i := range rounds {
		text := fmt.Sprintf("keyed reply %d", i)
		p.GeminiType(fmt.Sprintf("say keyed round %d", i))
		doneIn(t, h, p, s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)[1])
		out, err := runKeys(h, w.tm, "reply", text, "--pane", p.ID)
		var k event.Event
		if err != nil || event.Decode([]byte(strings.TrimSpace(out)), &k) != nil {
			t.Fatalf("ag-keys reply: %v\n%s", err, out)
		}
		check(k, text)
	}
	t.Logf("%d replies typed at once after done, %d of them needed Enter again", 2*rounds, again)

	// Gemini too busy to read its input while the reply is typed (stopped,
	// as a blocked event loop is): it reads the text and the Enter at
	// once, and takes the Enter for a newline. ag-keys sees the reply sit
	// in the composer and presses Enter again.
	p.GeminiType("say busy round")
	done := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)[1]
	doneIn(t, h, p, done)
	if err := syscall.Kill(done.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := make(chan struct{})
	go func() {
		defer close(resumed)
		time.Sleep(800 * time.Millisecond)
		syscall.Kill(done.PID, syscall.SIGCONT)
	}()
	out, err := runKeys(h, w.tm, "reply", "busy reply", "--pane", p.ID)
	<-resumed
	var k event.Event
	if err != nil || event.Decode([]byte(strings.TrimSpace(out)), &k) != nil || !strings.Contains(k.Reason, "Enter again") {
		t.Errorf("ag-keys reply to a busy Gemini: %v\n%s\nscreen:\n%s", err, out, p.Capture())
	}
	again = 0
	check(k, "busy reply")
	if again != 1 {
		t.Errorf("the busy reply: Enter pressed again %d times", again)
	}
}
