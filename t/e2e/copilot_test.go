//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/copilot"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// copilotWorld is Copilot CLI in a tmux pane with ag's hooks installed by
// ag-hook and the login pipeline (ag-tail --follow | ag-fold) watching.
type copilotWorld struct {
	h    *Harness
	bin  string
	home string // Copilot's home ($COPILOT_HOME when ownHome)
	tm   *Tmux
	pl   *Pipeline
	p    *Pane
	s    *Session
}

func newCopilotWorld(t *testing.T, ownHome bool, stages ...[]string) *copilotWorld {
	t.Helper()
	bin := Install(t, Copilot)
	CheckVersion(t, bin, Copilot.Version)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	w := &copilotWorld{h: h, bin: bin, home: h.CopilotConfig(t, api, ownHome)}
	out := h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "copilot")
	if !strings.Contains(out, filepath.Join(w.home, "settings.json")) {
		t.Errorf("ag-hook install --agent copilot did not write %s:\n%s", filepath.Join(w.home, "settings.json"), out)
	}
	if len(stages) == 0 {
		stages = [][]string{{"ag-tail", "--follow"}, {"ag-fold"}}
	}
	w.pl = h.StartPipeline(stages...)
	w.tm = h.StartTmux()
	return w
}

func (w *copilotWorld) start(t *testing.T, name string, args ...string) {
	t.Helper()
	t0 := time.Now()
	w.p = w.h.StartCopilot(w.tm, name, w.bin, args...)
	t.Logf("copilot composer after %s", time.Since(t0).Round(time.Millisecond))
	w.s = w.pl.Out.Session(copilot.ID, "")
}

// keys runs ag-keys action (and args) on the world's pane once the state
// file holds the state it must act on, and returns its output and exit
// status.
func (w *copilotWorld) keys(t *testing.T, status, action string, args ...string) (string, int) {
	t.Helper()
	w.h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, w.p.ID)
		return ok && st.Status == status && st.Token == w.s.Last.Token
	}, "the pane's state "+status+" in the state file")
	return w.h.runCode(30*time.Second, append([]string{Bin(t, "ag-keys"), action, "--pane", w.p.ID, "-S", w.tm.Socket}, args...)...)
}

// typeIn types prompt at the composer once it takes keys again: a moment
// after the idle footer is back (keys sent sooner are lost).
func (w *copilotWorld) typeIn(t *testing.T, prompt string) {
	t.Helper()
	w.p.WaitText(30*time.Second, CopilotIdle)
	time.Sleep(time.Second)
	w.p.Type(prompt)
}

// wait types prompt and expects working → waiting with attention, tool and
// text, which it returns.
func (w *copilotWorld) wait(t *testing.T, prompt, attn, tool, text string) event.Event {
	t.Helper()
	w.typeIn(t, prompt)
	wt := w.s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if wt.Attention != attn || wt.Tool != tool || wt.Text != text || wt.Reason != "" || wt.Pane != w.p.ID {
		t.Errorf("waiting state: attention %q tool %q text %q reason %q pane %q; want %s, %s, %q, none, %s",
			wt.Attention, wt.Tool, wt.Text, wt.Reason, wt.Pane, attn, tool, text, w.p.ID)
	}
	return wt
}

// TestCopilot runs the real Copilot CLI 1.0.102 (BYOK against the fake
// Chat Completions API, no GitHub login) in tmux, its hooks installed by
// ag-hook into $COPILOT_HOME/settings.json and the login pipeline
// watching: detection (the native child, not the node loader), a plain
// turn, the meters from events.jsonl, a command approved with ag-keys (1)
// and one denied (Escape: the session idle, the command not run), a
// denial with feedback (ag-keys reply: the model goes on), one call's two
// dialogs (URL access, then the command), questions answered with
// ag-keys (a choice's label, other text in Other's field, a field of free
// text), a plan review approved on its Interactive row, one Escape at work
// (nothing) and Escape Escape (the prompt taken back: idle), Ctrl+C, an
// API error (failed), and /exit (gone).
func TestCopilot(t *testing.T) {
	t.Parallel()
	w := newCopilotWorld(t, true)
	h := w.h
	if st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "copilot"); !strings.HasPrefix(st, "copilot: installed in "+filepath.Join(w.home, "settings.json")) {
		t.Errorf("ag-hook status --agent copilot: %q", st)
	}
	w.start(t, "copilot")
	p, s := w.p, w.s
	child := copilotChild(t, p)
	copilotDetected(t, h, p, child)

	t.Log("-- plain prompt: idle → working → done, on the native process in the pane")
	w.typeIn(t, "say hello SLOW:2s")
	wk := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)[0]
	if wk.Pane != p.ID || wk.PID != child || wk.TTY != p.TTY || wk.Prompt != "say hello SLOW:2s" || wk.Cwd != h.Project {
		t.Errorf("working state: pane %q pid %d tty %q prompt %q cwd %q; want %s, %d (the native child), %s, the prompt, %s",
			wk.Pane, wk.PID, wk.TTY, wk.Prompt, wk.Cwd, p.ID, child, p.TTY, h.Project)
	}
	if want := filepath.Join(w.home, "session-state", s.ID, "events.jsonl"); s.Last.Transcript != want {
		t.Errorf("transcript %q, want %s", s.Last.Transcript, want)
	}

	t.Log("-- meters from events.jsonl: model, tokens, context against the prompt limit")
	m := w.pl.Out.Await(t, "with meters", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Tokens != nil && e.Context != nil && e.Context.LeftPct != nil
	})
	if m.Model != "fake-model" || m.Context.Size != 128000 || m.Context.Used <= 0 || m.Tokens.In <= 0 || m.Tokens.CacheRead <= 0 || m.Tokens.Out <= 0 {
		t.Errorf("meters: model %q context %+v tokens %+v", m.Model, *m.Context, *m.Tokens)
	}

	t.Log("-- approved with ag-keys: waiting(permission, shell) → 1 → working → done, the command ran")
	w.wait(t, "RUN: echo marker > marker.txt", event.AttnPermission, "shell", "echo marker > marker.txt")
	p.WaitText(10*time.Second, CopilotPermission)
	if out, code := w.keys(t, event.StatusWaiting, "approve"); code != 0 || !strings.Contains(out, `"text":"1"`) {
		t.Fatalf("ag-keys approve: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "marker.txt")); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: %q %v", b, err)
	}

	t.Log("-- denied with ag-keys: waiting → Escape → idle (no hook: events.jsonl's cancelled and abort), the command did not run")
	w.wait(t, "RUN: echo denied > denied.txt", event.AttnPermission, "shell", "echo denied > denied.txt")
	p.WaitText(10*time.Second, CopilotPermission)
	if out, code := w.keys(t, event.StatusWaiting, "deny"); code != 0 || !strings.Contains(out, `"text":"Escape"`) {
		t.Fatalf("ag-keys deny: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusIdle)
	p.WaitAnyText(10*time.Second, CopilotCancelled, CopilotAborted)
	if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}

	t.Log("-- a reply on the prompt: the feedback row, the command refused, the model goes on")
	w.wait(t, "RUN: echo fb > fb.txt", event.AttnPermission, "shell", "echo fb > fb.txt")
	p.WaitText(10*time.Second, CopilotPermission)
	if out, code := w.keys(t, event.StatusWaiting, "reply", "use printf instead"); code != 0 {
		t.Fatalf("ag-keys reply: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "User feedback: use printf instead")
	if _, err := os.Stat(filepath.Join(h.Project, "fb.txt")); err == nil {
		t.Error("fb.txt exists: the refused command ran")
	}

	t.Log("-- one call, two dialogs: URL access (approved), then the command (denied)")
	w.wait(t, "RUN: curl -s http://example.invalid/x", event.AttnPermission, "url", "http://example.invalid/x")
	p.WaitText(10*time.Second, CopilotURL)
	if out, code := w.keys(t, event.StatusWaiting, "approve"); code != 0 {
		t.Fatalf("ag-keys approve (URL): %d %s", code, out)
	}
	// The second dialog's notification can beat the log's answer to the
	// first: working in between, or not.
	cmd := s.WaitFor(t, "the command's dialog", 60*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusWaiting && e.Tool == "shell"
	})
	if cmd.Text != "curl -s http://example.invalid/x" {
		t.Errorf("the second dialog's text %q", cmd.Text)
	}
	p.WaitText(10*time.Second, CopilotPermission)
	if out, code := w.keys(t, event.StatusWaiting, "deny"); code != 0 {
		t.Fatalf("ag-keys deny (command): %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusIdle)

	t.Log("-- a question (ask_user): waiting(question); approve refused; ag-keys answer: a choice's label picks it, other text goes into Other's field")
	const ask = `CALL: ask_user {"message":"Which colour?","requestedSchema":{"properties":{"colour":{"type":"string","title":"Colour","enum":["Blue","Green"]}}}}`
	w.wait(t, ask, event.AttnQuestion, "ask_user", "Which colour?")
	p.WaitText(10*time.Second, CopilotQuestion)
	if r := panesOf(t, h, p); r != event.AttnQuestion {
		t.Errorf("the pane rules read the form as %q", r)
	}
	if out, code := w.keys(t, event.StatusWaiting, "approve"); code != 1 {
		t.Errorf("ag-keys approve on a question: exit %d %s", code, out)
	}
	if out, code := w.keys(t, event.StatusWaiting, "answer", "green"); code != 0 || !strings.Contains(out, `"Down, 30ms, Enter"`) {
		t.Errorf("ag-keys answer green: exit %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "└ Green")
	w.wait(t, ask, event.AttnQuestion, "ask_user", "Which colour?")
	p.WaitText(10*time.Second, CopilotQuestion)
	if out, code := w.keys(t, event.StatusWaiting, "answer", "Teal please"); code != 0 {
		t.Errorf("ag-keys answer Teal please: exit %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "└ Teal please")
	t.Log("-- a field of free text: the answer straight in, a digit too, and Enter")
	const askName = `CALL: ask_user {"message":"Your name","requestedSchema":{"properties":{"name":{"type":"string","title":"Name"}}}}`
	w.wait(t, askName, event.AttnQuestion, "ask_user", "Your name")
	p.WaitText(10*time.Second, CopilotQuestion, "enter accept · ctrl+d decline")
	if out, code := w.keys(t, event.StatusWaiting, "answer", "Ada 42"); code != 0 || !strings.Contains(out, `Ada 42`) {
		t.Errorf("ag-keys answer Ada 42: exit %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "└ Ada 42")
	w.wait(t, askName, event.AttnQuestion, "ask_user", "Your name")
	p.WaitText(10*time.Second, CopilotQuestion, "enter accept · ctrl+d decline")
	if out, code := w.keys(t, event.StatusWaiting, "answer", "7"); code != 0 {
		t.Errorf("ag-keys answer 7: exit %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "└ 7")

	t.Log("-- a plan review (plan mode): waiting(plan), plan-approve types the Interactive row's digit")
	p.WaitText(30*time.Second, CopilotIdle)
	time.Sleep(time.Second)
	p.Keys("BTab")
	p.WaitText(10*time.Second, "· Plan ·")
	w.wait(t, `CALL: exit_plan_mode {"summary":"- write plan.txt\n- test it","recommendedAction":"interactive"}`,
		event.AttnPlan, "exit_plan_mode", "- write plan.txt\n- test it")
	p.WaitText(10*time.Second, CopilotPlan, "1. Accept plan and continue in Interactive")
	if out, code := w.keys(t, event.StatusWaiting, "plan-approve"); code != 0 || !strings.Contains(out, `"text":"1"`) {
		t.Fatalf("ag-keys plan-approve: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "· Interactive ·")

	t.Log("-- at work: one Escape does nothing; Escape Escape takes the prompt back (before the reply streams) or interrupts: idle")
	w.typeIn(t, "think it over SLOW:20s")
	s.Expect(t, 60*time.Second, event.StatusWorking)
	p.WaitText(10*time.Second, "esc esc")
	p.Keys("Escape")
	time.Sleep(3 * time.Second)
	if st := s.Last; st.Status != event.StatusWorking {
		t.Errorf("one Escape at work: %s", st.Status)
	}
	// Whether the first bytes of the held reply are on screen yet decides
	// what Escape Escape does; the footer says which.
	footer := lastLines(p.Capture(), 1)
	t.Logf("footer: %s", strings.TrimSpace(footer))
	// Two keys in one write read as Meta-Escape: apart, like a hand.
	p.Keys("Escape")
	time.Sleep(300 * time.Millisecond)
	p.Keys("Escape")
	s.Expect(t, 30*time.Second, event.StatusIdle)
	if strings.Contains(footer, "edit prompt") {
		p.WaitText(10*time.Second, "❯ think it over SLOW:20s") // back in the composer
		time.Sleep(time.Second)                                // keys sooner are lost
		p.Keys("C-e", "C-u")
	} else {
		p.WaitText(10*time.Second, CopilotCancelled)
	}

	t.Log("-- at the composer: Escape Escape, the rewind picker; the last prompt taken back (the file rewritten): still idle")
	p.WaitText(30*time.Second, CopilotIdle)
	time.Sleep(time.Second)
	p.Keys("Escape")
	time.Sleep(300 * time.Millisecond)
	p.Keys("Escape")
	p.WaitText(10*time.Second, "Rewind to a previous point")
	if r := panesOf(t, h, p); r != "" {
		t.Errorf("the pane rules read the rewind picker as %q", r)
	}
	p.Keys("Enter") // the newest prompt
	p.WaitText(10*time.Second, "Conversation only")
	p.Keys("Enter")
	p.WaitText(10*time.Second, "Rewound the conversation")
	time.Sleep(2 * time.Second) // ag-tail reads the rewritten file again
	if st := s.Last; st.Status != event.StatusIdle {
		t.Errorf("after the rewind: %s", st.Status)
	}
	time.Sleep(time.Second)
	p.Keys("C-e", "C-u") // the prompt, back in the composer

	t.Log("-- Ctrl+C at work: abort, idle")
	w.typeIn(t, "more SLOW:20s")
	s.Expect(t, 60*time.Second, event.StatusWorking)
	p.WaitText(10*time.Second, CopilotWorking)
	p.Keys("C-c")
	s.Expect(t, 30*time.Second, event.StatusIdle)

	t.Log("-- the API refuses: failed, with what Copilot was told")
	w.typeIn(t, "FAIL: quota gone")
	f := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusFailed)[1]
	if !strings.Contains(f.Text, "quota gone") {
		t.Errorf("failed state: text %q reason %q", f.Text, f.Reason)
	}

	t.Log("-- /exit: gone")
	w.typeIn(t, "/exit")
	g := s.Expect(t, 60*time.Second, event.StatusGone)[0]
	if g.Reason != "user_exit" && g.Reason != "routine" {
		t.Errorf("gone: reason %q", g.Reason)
	}
	t.Logf("statuses %s", strings.Join(s.History(), " → "))
	if bad := w.pl.Out.Bad(); len(bad) > 0 {
		t.Errorf("ag-fold wrote lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
}
