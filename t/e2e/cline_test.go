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
	"github.com/agwatch/ag/providers/cline"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// TestCline runs the real Cline CLI 3.0.65 in tmux with ag's hook scripts
// installed by ag-hook beside a hook of the user's own, and the login
// pipeline (ag-tail --follow | ag-fold | ag-notify on a private D-Bus, no
// cooldown) watching: detection (the TUI, never its hub daemon), a plain
// turn, the meters from the messages file, a command run with auto-approve
// on (Cline's default: no wait, ever), then with it off a command approved
// with ag-keys (y), one denied (n), one refused by the user's own Escape,
// a question (its options in the state) answered from its notification's
// option button and in words, plan mode's
// switch_to_act_mode approved (a plan wait), the user's Escape at work,
// an API error, a restart of the pipeline, and /exit — after which the
// hub daemon is still there, ended by its pid.
func TestCline(t *testing.T) {
	t.Parallel()
	bin := Install(t, Cline)
	CheckVersion(t, bin, Cline.Version)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	h.ClineConfig(t, bin, api)
	hooks := filepath.Join(h.Home, ".cline", "hooks")
	if err := os.MkdirAll(hooks, 0o700); err != nil {
		t.Fatal(err)
	}
	// A hook of the user's own, Cline's documented name: it runs beside ag's.
	mine := filepath.Join(h.Root, "mine.log")
	if err := os.WriteFile(filepath.Join(hooks, "TaskComplete"), []byte("#!/bin/sh\ncat >> '"+mine+"'\necho >> '"+mine+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "cline")
	for _, want := range []string{"(9 hooks added)", "auto-approve is on", "your own hooks run beside ag's: TaskComplete"} {
		if !strings.Contains(out, want) {
			t.Errorf("install says nothing of %q:\n%s", want, out)
		}
	}
	if st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "cline"); !strings.HasPrefix(st, "cline: installed in ") {
		t.Errorf("ag-hook status --agent cline: %q", st)
	}
	h.StartDBus()
	nd := h.StartNotifyd()
	tm := h.StartTmux()
	stages := [][]string{{"ag-tail", "--follow"}, {"ag-fold"}, {"ag-notify", "--backend", "dbus", "--cooldown", "0s", "-S", tm.Socket}}
	pl := h.StartPipeline(stages...)
	rig := notifyRig{h: h, nd: nd, pl: pl, keys: h.StartKeys(pl.Out, "-S", tm.Socket)}
	t0 := time.Now()
	p := h.StartCline(tm, "cline", bin)
	t.Logf("cline composer after %s", time.Since(t0).Round(time.Millisecond))
	hub := h.ClineHub(10 * time.Second)
	t.Logf("cline's hub daemon: pid %d", hub)
	detectedAs(t, h, p, cline.ID, p.PID, "/cline")
	for _, e := range procUps(t, h, tm) {
		if hub != 0 && e.PID == hub {
			t.Errorf("ag-detect reports the hub daemon: %s", event.Marshal(&e))
		}
	}
	s := pl.Out.Session(cline.ID, "")
	keys := func(status, action string, args ...string) (string, int) {
		return paneKeys(t, h, p, s, status, action, args...)
	}
	typeIn := func(text string) {
		p.WaitText(30*time.Second, "❯ ")
		time.Sleep(time.Second)
		p.Type(text)
		if !strings.HasPrefix(text, "/") {
			clineSubmitted(t, p, text)
		}
	}

	t.Log("-- plain prompt: working → done, the prompt named (its transcript is written once the model answers)")
	typeIn("say hello SLOW:2s")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: say hello")
	d := pl.Out.Await(t, "the prompt named", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Prompt == "say hello SLOW:2s"
	})
	if d.Pane != p.ID || d.PID != p.PID || d.Cwd != h.Project {
		t.Errorf("state: pane %q pid %d cwd %q; want %s, %d, %s", d.Pane, d.PID, d.Cwd, p.ID, p.PID, h.Project)
	}
	if want := filepath.Join(h.Home, ".cline", "data", "sessions", s.ID, s.ID+".messages.json"); d.Transcript != want {
		t.Errorf("transcript %q, want %s", d.Transcript, want)
	}

	t.Log("-- meters from the messages file: model, tokens, the context the turn took")
	m := pl.Out.Await(t, "with meters", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Tokens != nil && e.Context != nil
	})
	if m.Model != "fake-model" || m.Context.Used <= 0 || m.Tokens.In <= 0 || m.Tokens.CacheRead <= 0 || m.Tokens.Out <= 0 {
		t.Errorf("meters: model %q context %+v tokens %+v", m.Model, *m.Context, *m.Tokens)
	}

	t.Log("-- auto-approve on (Cline's default): a command runs at once; the session never waits")
	typeIn("RUN: sleep 3; echo auto > auto.txt")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "auto.txt")); err != nil || string(b) != "auto\n" {
		t.Errorf("the command did not run: %q %v", b, err)
	}

	t.Log("-- auto-approve off (Shift+Tab): approved with ag-keys: waiting(permission, run_commands) → y → working → done")
	p.WaitText(30*time.Second, ClineComposer)
	time.Sleep(time.Second)
	p.Keys("BTab")
	p.WaitText(10*time.Second, ClineAutoOff)
	from := len(nd.Calls())
	typeIn("RUN: echo marker > marker.txt")
	wt := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if wt.Attention != event.AttnPermission || wt.Tool != "run_commands" || wt.Text != "echo marker > marker.txt" || wt.Pane != p.ID {
		t.Errorf("waiting state: attention %q tool %q text %q pane %q", wt.Attention, wt.Tool, wt.Text, wt.Pane)
	}
	p.WaitText(10*time.Second, ClinePermission)
	note, _ := nd.WaitCall(from, "Notify for the wait", 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, "echo marker")
	})
	if !hasButtons(note) {
		t.Errorf("the wait's notification offers no Approve/Deny: %q", note.Actions)
	}
	t.Logf("cline: database → Notify on the session bus: %s", note.Time().Sub(wt.T.Time).Round(100*time.Microsecond))
	if r := panesOf(t, h, p); r != event.AttnPermission {
		t.Errorf("the pane rules read the dialog as %q", r)
	}
	if out, code := keys(event.StatusWaiting, "approve"); code != 0 || !strings.Contains(out, `"text":"y"`) {
		t.Fatalf("ag-keys approve: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "marker.txt")); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: %q %v", b, err)
	}

	t.Log("-- denied with ag-keys (n): the model is told and goes on; the command did not run")
	typeIn("RUN: echo denied > denied.txt")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)
	p.WaitText(10*time.Second, ClinePermission)
	if out, code := keys(event.StatusWaiting, "deny"); code != 0 || !strings.Contains(out, `"text":"n"`) {
		t.Fatalf("ag-keys deny: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "rejected by the user")

	t.Log("-- the user's own Escape on the dialog: refused the same way")
	typeIn("RUN: echo esc > esc.txt")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)
	p.WaitText(10*time.Second, ClinePermission)
	time.Sleep(time.Second)
	p.Keys("Escape")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	for _, f := range []string{"denied.txt", "esc.txt"} {
		if _, err := os.Stat(filepath.Join(h.Project, f)); err == nil {
			t.Errorf("%s exists: a refused command ran", f)
		}
	}

	t.Log("-- a question: waiting(question) with its options; approve refused; the second option's button picks it, other text goes to its last row")
	const ask = `CALL: ask_question {"question":"Which colour?","options":["Blue","Green"]}`
	for _, answer := range []struct {
		text, keys, result string
		button             bool
	}{{"Green", `Down, 30ms, Enter`, `"content":"Green"`, true}, {"2 apples", `Enter once shown`, `"content":"2 apples"`, false}} {
		from := len(nd.Calls())
		typeIn(ask)
		q := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
		if q.Attention != event.AttnQuestion || q.Tool != "ask_question" || q.Text != "Which colour?" || !slices.Equal(q.Options, []string{"Blue", "Green"}) {
			t.Errorf("question wait: attention %q tool %q text %q options %q", q.Attention, q.Tool, q.Text, q.Options)
		}
		p.WaitText(10*time.Second, ClineQuestion, "Type a response...")
		if out, code := keys(event.StatusWaiting, "approve"); code != 1 {
			t.Errorf("ag-keys approve on a question: exit %d %s", code, out)
		}
		if answer.button {
			o := rig.offerWith(t, from, q, p, "Cline CLI · project", "Has a question", "Has a question\nWhich colour?")
			if k := rig.pressOption(t, o, p, 2, answer.text); k.Status != "sent" || k.Text != answer.keys {
				t.Errorf("the option's button: status %q text %q reason %q", k.Status, k.Text, k.Reason)
			}
		} else if out, code := keys(event.StatusWaiting, "answer", answer.text); code != 0 || !strings.Contains(out, answer.keys) {
			t.Errorf("ag-keys answer %q: exit %d %s", answer.text, code, out)
		}
		s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
		b, _ := os.ReadFile(filepath.Join(h.Home, ".cline", "data", "sessions", s.ID, s.ID+".messages.json"))
		if !strings.Contains(strings.ReplaceAll(string(b), " ", ""), strings.ReplaceAll(answer.result, " ", "")) {
			t.Errorf("the question's result is not %s", answer.result)
		}
	}

	t.Log("-- plan mode (Tab): switch_to_act_mode asks; waiting(plan); plan-approve (y) carries the plan out")
	p.WaitText(30*time.Second, ClineComposer)
	time.Sleep(time.Second)
	p.Keys("Tab")
	p.WaitText(10*time.Second, "● Plan")
	typeIn("CALL: switch_to_act_mode {}")
	pw := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if pw.Attention != event.AttnPlan || pw.Tool != "switch_to_act_mode" {
		t.Errorf("plan wait: attention %q tool %q", pw.Attention, pw.Tool)
	}
	p.WaitText(10*time.Second, ClinePermission, "switch_to_act_mode")
	if out, code := keys(event.StatusWaiting, "plan-approve"); code != 0 || !strings.Contains(out, `"text":"y"`) {
		t.Fatalf("ag-keys plan-approve: %d %s", code, out)
	}
	// Approved, Cline starts a turn of its own: "The user approved
	// switching to act mode. Continue with the approved plan now."
	s.WaitFor(t, "the call's turn done", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
	p.WaitText(30*time.Second, "● Act", "FAKE-REPLY: The user approved switching to act mode")
	h.WaitState(30*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == s.ID {
				return st.Status == event.StatusDone && st.Prompt == "The user approved switching to act mode. Continue with the approved plan now."
			}
		}
		return false
	}, "Cline's own turn done")
	s.Drain()

	t.Log("-- the user's Escape at work: idle within seconds")
	typeIn("think a while SLOW:30s")
	s.Expect(t, 60*time.Second, event.StatusWorking)
	p.WaitText(15*time.Second, "esc to cancel")
	p.Keys("Escape")
	s.Expect(t, 15*time.Second, event.StatusIdle)

	t.Log("-- the API refuses: failed, with what Cline was told")
	typeIn("FAIL: quota gone")
	f := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusFailed)[1]
	if !strings.Contains(f.Text, "quota gone") {
		t.Errorf("failed state: text %q reason %q", f.Text, f.Reason)
	}

	t.Log("-- the pipeline restarted: the state and the meters go on, nothing counted twice")
	before := s.Last
	for i := len(pl.Stages) - 1; i >= 0; i-- {
		pl.Stages[i].Stop()
	}
	pl = h.StartPipeline(stages...)
	s = &Session{w: pl.Out, Agent: cline.ID, ID: s.ID, Last: before}
	typeIn("after the restart")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	after := pl.Out.Await(t, "the new turn's meter", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Tokens != nil && e.Tokens.In > before.Tokens.In
	})
	var in int64
	msgs := cline.NewMessages(filepath.Join(h.Home, ".cline", "data", "sessions", s.ID, s.ID+".messages.json"))
	b, _ := os.ReadFile(filepath.Join(h.Home, ".cline", "data", "sessions", s.ID, s.ID+".messages.json"))
	msgs.ParseWhole(b, func(e *event.Event) {
		if e.Kind == event.Meter {
			in += e.Tokens.In
		}
	})
	if after.Tokens.In != in {
		t.Errorf("tokens in after the restart: %d; the messages file's: %d", after.Tokens.In, in)
	}

	t.Log("-- /exit: gone; the user's own hook ran all along; the hub daemon stays")
	typeIn("/exit")
	h.WaitState(60*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == s.ID {
				return st.Status == event.StatusGone
			}
		}
		return false
	}, "the session gone")
	if b, _ := os.ReadFile(mine); strings.Count(string(b), `"hookName":"agent_end"`) < 8 {
		t.Errorf("the user's own TaskComplete ran %d times", strings.Count(string(b), `"hookName":"agent_end"`))
	}
	if hub != 0 && !alive(hub) {
		t.Error("the hub daemon went with the TUI")
	}
	t.Logf("statuses %s", strings.Join(s.History(), " → "))
	if bad := pl.Out.Bad(); len(bad) > 0 {
		t.Errorf("ag-fold wrote lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
}
