//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/auggie"
	"github.com/agwatch/ag/t/fakeapi/augment"
)

// auggieWorld is Auggie in a tmux pane against the fake Augment backend,
// ag's hooks installed by ag-hook, and the login pipeline with screens
// read (ag-tail --follow and ag-detect --watch --panes | ag-fold |
// ag-notify --backend dbus), ag-keys taking ag-notify's output: Auggie
// has no hook for its approval dialog, so only its pane says it waits.
type auggieWorld struct {
	notifyRig
	tm   *Tmux
	bin  string
	home string
	p    *Pane
	s    *Session
}

func newAuggieWorld(t *testing.T) *auggieWorld {
	t.Helper()
	bin := Install(t, Auggie)
	CheckVersion(t, bin, Auggie.Version)
	h := New(t)
	h.FakeAugment(augment.Options{})
	w := &auggieWorld{notifyRig: notifyRig{h: h}, bin: bin, home: h.AuggieConfig()}
	out := h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "auggie")
	if !strings.Contains(out, "auggie: hooks installed in ~/.augment/settings.json (6 hooks added)") || !strings.Contains(out, "enable_hooks") {
		t.Errorf("ag-hook install --agent auggie:\n%s", out)
	}
	h.StartDBus()
	w.nd = h.StartNotifyd()
	w.tm = h.StartTmux()
	w.pl = w.pipeline(true)
	return w
}

// pipeline starts the login pipeline, with ag-notify and ag-keys when
// notify is set.
func (w *auggieWorld) pipeline(notify bool) *Pipeline {
	stages := append(LoginStages(w.tm), []string{"ag-fold"})
	if notify {
		stages = append(stages, []string{"ag-notify", "--backend", "dbus", "-S", w.tm.Socket, "--cooldown", "0"})
	}
	pl := w.h.StartPipeline(stages...)
	if notify {
		w.keys = w.h.StartKeys(pl.Out, "-S", w.tm.Socket)
	}
	return pl
}

// wait types RUN: cmd and expects working → waiting(permission,
// launch-process, cmd) from the pane, notified with Approve and Deny.
func (w *auggieWorld) wait(t *testing.T, cmd string) offered {
	t.Helper()
	from := len(w.nd.Calls())
	w.p.Prompt("RUN: " + cmd)
	wt := w.s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if wt.Attention != event.AttnPermission || wt.Tool != "launch-process" || wt.Text != cmd || wt.Token == "" || wt.Pane != w.p.ID {
		t.Fatalf("waiting state: attention %q tool %q text %q token %q pane %q; want permission, launch-process, %q, a token, %s",
			wt.Attention, wt.Tool, wt.Text, wt.Token, wt.Pane, cmd, w.p.ID)
	}
	o := w.offer(t, from, wt, w.p, "Auggie · project", "Needs permission: launch-process\n", cmd)
	w.p.WaitText(10*time.Second, AuggiePermission, AuggieKeys)
	return o
}

// TestAuggie runs the real Auggie 0.36.0 against the fake Augment backend
// (no login) in tmux, its hooks installed by ag-hook, commands set to ask
// (--permission launch-process:ask-user): ag-hook status, detection (the
// node process in the pane), a plain turn and its meters (model, tokens,
// context, cost from the session file), a command approved from its
// desktop notification (a), one denied (d: the refusal goes to the model
// and the turn goes on), the user's own Escape at the dialog (Auggie
// ignores it: still waiting) and at work (idle), an API error (no hook
// says so: the composer's return does), the pipeline stopped and started
// again while a turn ran, and /exit (gone).
func TestAuggie(t *testing.T) {
	t.Parallel()
	w := newAuggieWorld(t)
	h := w.h
	if st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "auggie"); !strings.HasPrefix(st, "auggie: installed in ~/.augment/settings.json") {
		t.Errorf("ag-hook status --agent auggie: %q", st)
	}
	w.p = h.StartAuggie(w.tm, "auggie", w.bin)
	p := w.p
	// ag-detect sees the pane before the SessionStart hook names the
	// session: that pane's state goes when the session's comes.
	first := w.pl.Out.Await(t, "the session SessionStart names", 60*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == auggie.ID && e.Session != ""
	})
	w.s = w.pl.Out.Session(auggie.ID, first.Session)
	s := w.s
	detectedAs(t, h, p, auggie.ID, p.PID, "node") // the node process the pane runs

	t.Log("-- plain prompt: idle → working → done, on the node process in the pane")
	p.Prompt("say hello SLOW:2s")
	wk := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)[0]
	if wk.Pane != p.ID || wk.PID != p.PID || wk.TTY != p.TTY || wk.Prompt != "say hello SLOW:2s" || wk.Cwd != h.Project {
		t.Errorf("working state: pane %q pid %d tty %q prompt %q cwd %q; want %s, %d, %s, the prompt, %s",
			wk.Pane, wk.PID, wk.TTY, wk.Prompt, wk.Cwd, p.ID, p.PID, p.TTY, h.Project)
	}

	t.Log("-- meters from the session file: model, tokens, context against 200,000, cost")
	m := w.pl.Out.Await(t, "with meters", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Tokens != nil && e.Context != nil && e.CostUSD != nil
	})
	if want := filepath.Join(w.home, "sessions", s.ID+".json"); m.Transcript != want {
		t.Errorf("transcript %q, want %s", m.Transcript, want)
	}
	if m.Model != augment.Model || m.Context.Size != auggie.DefaultWindow || m.Context.Used <= 0 || m.Tokens.In <= 0 ||
		m.Tokens.CacheRead <= 0 || m.Tokens.Out <= 0 || *m.CostUSD <= 0 {
		t.Errorf("meters: model %q context %+v tokens %+v cost %v", m.Model, *m.Context, *m.Tokens, *m.CostUSD)
	}

	t.Log("-- approved from the notification: waiting (the pane) → a → working → done, the command ran")
	o := w.wait(t, "echo marker > marker.txt")
	k := w.press(t, o, p, "approve")
	if k.Status != "sent" || k.Action != "approve" || k.Text != "a" || k.Pane != p.ID || k.Session != s.ID {
		t.Fatalf("keys event: status %q action %q text %q pane %q session %q reason %q; want sent, approve, a, %s, %s",
			k.Status, k.Action, k.Text, k.Pane, k.Session, k.Reason, p.ID, s.ID)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "marker.txt")); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: %q %v", b, err)
	}
	w.nd.WaitClosed(o.note.ID, 10*time.Second)

	t.Log("-- denied from the notification: d → the refusal goes to the model: working → done, the command did not run")
	o = w.wait(t, "echo denied > denied.txt")
	k = w.press(t, o, p, "deny")
	if k.Status != "sent" || k.Action != "deny" || k.Text != "d" {
		t.Fatalf("keys event: status %q action %q text %q reason %q; want sent, deny, d", k.Status, k.Action, k.Text, k.Reason)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, AuggieDenied, "FAKE-DONE: tool result received")
	if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}
	w.nd.WaitClosed(o.note.ID, 10*time.Second)

	t.Log("-- the user's own Escape at the dialog: Auggie ignores it, the session still waits; then a from ag-keys")
	o = w.wait(t, "echo esc > esc.txt")
	p.Keys("Escape")
	time.Sleep(3 * time.Second)
	if st := s.Last; st.Status != event.StatusWaiting || !strings.Contains(p.Capture(), AuggieKeys) {
		t.Errorf("after Escape at the dialog: %s, screen:\n%s", st.Status, p.Capture())
	}
	if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "approve", "--pane", p.ID, "-S", w.tm.Socket); code != 0 || !strings.Contains(out, `"text":"a"`) {
		t.Fatalf("ag-keys approve: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if _, err := os.Stat(filepath.Join(h.Project, "esc.txt")); err != nil {
		t.Errorf("esc.txt: the command approved after Escape did not run: %v", err)
	}

	t.Log("-- Escape at work: idle (Stop, interrupted) long before the reply's end")
	p.Prompt("think a while SLOW:40s")
	s.Expect(t, 60*time.Second, event.StatusWorking)
	p.WaitText(10*time.Second, AuggieWorking)
	t0 := time.Now()
	p.Keys("Escape")
	s.Expect(t, 20*time.Second, event.StatusIdle)
	p.WaitText(10*time.Second, AuggieEscaped)
	t.Logf("idle %s after Escape", time.Since(t0).Round(time.Millisecond))

	t.Log("-- an API error: no Stop hook, nothing in the session file; the composer's return: idle")
	p.Prompt("FAIL: quota gone")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusIdle)
	p.WaitText(10*time.Second, AuggieAPIError)

	t.Log("-- the pipeline stopped, a turn while it is down, started again: done, tokens counted once")
	for _, st := range w.pl.Stages {
		st.Stop()
	}
	p.Prompt("while down")
	p.WaitText(30*time.Second, "FAKE-REPLY: while down")
	pl := w.pipeline(false)
	s2 := pl.Out.Session(auggie.ID, s.ID)
	s2.WaitFor(t, "done with the turn run while down", 30*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusDone && e.Prompt == "while down"
	})
	// The hooks' spool says done first; the session file's meter follows
	// (Auggie may write the file after its Stop hook ran).
	s2.WaitFor(t, "the session file's tokens, counted once", 30*time.Second, func(e *event.Event) bool {
		in, out := fileTokens(t, filepath.Join(w.home, "sessions", s.ID+".json"))
		if e.Tokens != nil && (e.Tokens.In > in || e.Tokens.Out > out) {
			t.Fatalf("tokens after the restart %+v: more than the session file's, in %d out %d", *e.Tokens, in, out)
		}
		return e.Tokens != nil && e.Tokens.In == in && e.Tokens.Out == out && strings.Contains(p.Capture(), "FAKE-REPLY: while down")
	})

	t.Log("-- /exit: gone")
	p.Prompt("/exit")
	s2.Expect(t, 60*time.Second, event.StatusGone)
	p.WaitText(10*time.Second, "auggie session resume "+s.ID)
	t.Logf("statuses %s", strings.Join(s.History(), " → "))
	if bad := append(append(w.pl.Out.Bad(), pl.Out.Bad()...), w.keys.Out.Bad()...); len(bad) > 0 {
		t.Errorf("lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
}

// fileTokens adds up the token usage a session file records: input and
// output.
func fileTokens(t *testing.T, path string) (in, out int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Chat []struct {
			Exchange struct {
				Reply []struct {
					Usage *struct {
						In  int64 `json:"input_tokens"`
						Out int64 `json:"output_tokens"`
					} `json:"token_usage"`
				} `json:"response_nodes"`
			} `json:"exchange"`
		} `json:"chatHistory"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Chat {
		for _, n := range c.Exchange.Reply {
			if n.Usage != nil {
				in, out = in+n.Usage.In, out+n.Usage.Out
			}
		}
	}
	return in, out
}
