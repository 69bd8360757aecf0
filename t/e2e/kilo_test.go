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
	"github.com/agwatch/ag/providers/kilo"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// TestKilo runs the real Kilo CLI 7.7.7 in tmux with ag's plugin installed
// by ag-hook, and the pipeline — ag-tail --follow and ag-detect --watch
// --panes | ag-fold | ag-notify on a private D-Bus, no cooldown —
// watching: detection (the native child, not the node launcher), a plain
// turn, the meters from kilo.db, a command approved with ag-keys (Enter),
// one denied (Escape, then Enter once the reason dialog shows) and one
// refused with feedback (ag-keys reply), a question (its options in the
// state) answered from its notification's option button (the digit) and
// in words, the plan agent's "Ready to implement?"
// (seen only on the screen) approved, the user's own Escape Escape at
// work, a restart of the pipeline (nothing counted twice), and /exit.
func TestKilo(t *testing.T) {
	t.Parallel()
	bin := Install(t, Kilo)
	CheckVersion(t, bin, Kilo.Version)
	h := New(t)
	trace := filepath.Join(h.Root, "bodies.ndjson")
	tf, err := os.Create(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.Close()
	api := h.FakeChat(chat.Options{Trace: tf})
	cfg := h.KiloConfig(api)
	// sent reports whether the model was sent text (a tool's result).
	sent := func(text string) bool {
		b, _ := os.ReadFile(trace)
		return strings.Contains(string(b), text)
	}
	out := h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "kilo")
	if !strings.Contains(out, "restart Kilo") || !strings.Contains(out, "@kilocode/plugin") {
		t.Errorf("install says nothing of a restart or of the plugin package:\n%s", out)
	}
	if st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "kilo"); !strings.HasPrefix(st, "kilo: installed in ") || !strings.Contains(st, "kilo/plugins/ag.js") {
		t.Errorf("ag-hook status --agent kilo: %q", st)
	}
	if b, _ := os.ReadFile(filepath.Join(cfg, "plugins", "ag.js")); !strings.HasPrefix(string(b), "// ag-kilo-plugin ") {
		t.Errorf("plugin: %.80s", b)
	}
	h.StartDBus()
	nd := h.StartNotifyd()
	tm := h.StartTmux()
	stages := append(LoginStages(tm), []string{"ag-fold"}, []string{"ag-notify", "--backend", "dbus", "--cooldown", "0s", "-S", tm.Socket})
	pl := h.StartPipeline(stages...)
	rig := notifyRig{h: h, nd: nd, pl: pl, keys: h.StartKeys(pl.Out, "-S", tm.Socket)}
	t0 := time.Now()
	p := h.StartKilo(tm, "kilo", bin)
	t.Logf("kilo composer after %s", time.Since(t0).Round(time.Millisecond))
	child := childNamed(t, p.PID, ".kilo")
	detectedAs(t, h, p, kilo.ID, child, "/.kilo")
	var s *Session
	keys := func(status, action string, args ...string) (string, int) {
		return paneKeys(t, h, p, s, status, action, args...)
	}
	// typeIn types a prompt once the composer takes keys again, and Enter
	// again while it stays in the composer (on a loaded machine the
	// first Enter, a moment after the composer is drawn, can be lost).
	typeIn := func(text string) {
		p.WaitText(30*time.Second, KiloReady)
		time.Sleep(time.Second)
		p.Type(text)
		if !strings.HasPrefix(text, "/") {
			kiloSubmitted(t, p, text)
		}
	}

	t.Log("-- plain prompt: working → done, on the native process")
	typeIn("say hello SLOW:2s")
	// ag-detect's sighting of the pane is a state of no session: the
	// session is the one the plugin names.
	first := pl.Out.Await(t, "a kilo session", 60*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == kilo.ID && e.Session != ""
	})
	s = pl.Out.Session(kilo.ID, first.Session)
	w := s.Expect(t, 90*time.Second, event.StatusWorking, event.StatusDone)[0]
	p.WaitText(10*time.Second, "FAKE-REPLY: say hello")
	if w.Pane != p.ID || w.PID != child || w.Prompt != "say hello SLOW:2s" || w.Cwd != h.Project {
		t.Errorf("working state: pane %q pid %d prompt %q cwd %q; want %s, %d (.kilo, not its node launcher %d), the prompt, %s",
			w.Pane, w.PID, w.Prompt, w.Cwd, p.ID, child, p.PID, h.Project)
	}

	t.Log("-- meters from kilo.db: model, tokens, context against the window kilo.json declares")
	m := pl.Out.Await(t, "with meters", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Tokens != nil && e.Context != nil && e.Context.LeftPct != nil
	})
	if m.Model != "fake/fake-model" || m.Context.Size != 128000 || m.Context.Used <= 0 || m.Tokens.In <= 0 || m.CostUSD == nil {
		t.Errorf("meters: model %q context %+v tokens %+v cost %v", m.Model, *m.Context, *m.Tokens, m.CostUSD)
	}

	t.Log("-- approved with ag-keys: waiting(permission, bash) → Enter → working → done, the command ran")
	from := len(nd.Calls())
	typeIn("RUN: echo marker > marker.txt")
	wt := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if wt.Attention != event.AttnPermission || wt.Tool != "bash" || wt.Text != "echo marker > marker.txt" {
		t.Errorf("waiting state: attention %q tool %q text %q", wt.Attention, wt.Tool, wt.Text)
	}
	p.WaitText(10*time.Second, KiloPermission)
	note, _ := nd.WaitCall(from, "Notify for the wait", 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, "echo marker")
	})
	if !hasButtons(note) {
		t.Errorf("the wait's notification offers no Approve/Deny: %q", note.Actions)
	}
	t.Logf("kilo: hook → Notify on the session bus: %s", note.Time().Sub(wt.T.Time).Round(100*time.Microsecond))
	time.Sleep(2 * time.Second) // the dialog takes keys a moment after it is drawn
	if out, code := keys(event.StatusWaiting, "approve"); code != 0 {
		t.Fatalf("ag-keys approve: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "marker.txt")); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: %q %v", b, err)
	}

	t.Log("-- denied with ag-keys: Escape, Enter once the reason dialog shows → done, the command did not run")
	typeIn("RUN: echo denied > denied.txt")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)
	p.WaitText(10*time.Second, KiloPermission)
	time.Sleep(2 * time.Second)
	if out, code := keys(event.StatusWaiting, "deny"); code != 0 || !strings.Contains(out, "Enter once reject-reason shows") {
		t.Fatalf("ag-keys deny: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}

	t.Log("-- refused with feedback (ag-keys reply): the model reads it and goes on")
	typeIn("RUN: echo fb > fb.txt")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)
	p.WaitText(10*time.Second, KiloPermission)
	time.Sleep(2 * time.Second)
	if out, code := keys(event.StatusWaiting, "reply", "use printf instead"); code != 0 {
		t.Fatalf("ag-keys reply: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-DONE")
	if !sent("with the following feedback: use printf instead") {
		t.Error("the model was not told the feedback")
	}
	if _, err := os.Stat(filepath.Join(h.Project, "fb.txt")); err == nil {
		t.Error("fb.txt exists: the refused command ran")
	}

	t.Log("-- a question: waiting(question) with its options; approve refused; the second option's button by its digit, other text in its own row")
	const ask = `CALL: question {"questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Blue","description":"the sky"},{"label":"Green","description":"grass"}]}]}`
	for _, answer := range []struct {
		text, keys, shown string
		button            bool
	}{{"Green", "2", "Green", true}, {"Teal please", `Enter once shown`, "Teal please", false}} {
		from := len(nd.Calls())
		typeIn(ask)
		q := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
		if q.Attention != event.AttnQuestion || q.Text != "Which colour?" || !slices.Equal(q.Options, []string{"Blue", "Green"}) {
			t.Errorf("question wait: attention %q text %q options %q", q.Attention, q.Text, q.Options)
		}
		p.WaitText(10*time.Second, KiloQuestion)
		if r := panesOf(t, h, p); r != event.AttnQuestion {
			t.Errorf("the pane rules read the picker as %q", r)
		}
		if out, code := keys(event.StatusWaiting, "approve"); code != 1 {
			t.Errorf("ag-keys approve on a question: exit %d %s", code, out)
		}
		time.Sleep(time.Second)
		if answer.button {
			o := rig.offerWith(t, from, q, p, "Kilo CLI · project", "Has a question", "Has a question\nWhich colour?")
			if k := rig.pressOption(t, o, p, 2, answer.text); k.Status != "sent" || k.Text != answer.keys {
				t.Errorf("the option's button: status %q text %q reason %q", k.Status, k.Text, k.Reason)
			}
		} else if out, code := keys(event.StatusWaiting, "answer", answer.text); code != 0 || !strings.Contains(out, answer.keys) {
			t.Errorf("ag-keys answer %q: exit %d %s", answer.text, code, out)
		}
		s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
		if !sent(`\"Which colour?\"=\"` + answer.shown + `\"`) {
			t.Errorf("the model was not sent the answer %q", answer.shown)
		}
	}

	t.Log("-- the plan agent: plan_exit's \"Ready to implement?\" is seen on the screen alone; plan-approve (2) implements it here")
	p.WaitText(30*time.Second, KiloReady)
	time.Sleep(time.Second)
	for i := 0; i < 4; i++ { // Code → Ask → Debug → Orchestrator → Plan
		p.Keys("Tab")
		time.Sleep(700 * time.Millisecond)
	}
	p.WaitText(10*time.Second, "Plan  ·")
	plan := filepath.Join(h.Home, ".local", "share", "kilo", "plans", "p.md")
	typeIn(`CALL: write {"filePath":"` + plan + `","content":"# Plan\n\n1. write plan.txt\n"}`)
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	typeIn(`CALL: plan_exit {"path":"` + plan + `"}`)
	pw := s.WaitFor(t, "waiting on the plan", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
	if pw.Attention != event.AttnPlan || pw.Tool != "plan_exit" {
		t.Errorf("plan wait: attention %q tool %q", pw.Attention, pw.Tool)
	}
	p.WaitText(10*time.Second, KiloPlan)
	if out, code := keys(event.StatusWaiting, "plan-approve"); code != 0 || !strings.Contains(out, `"text":"2"`) {
		t.Fatalf("ag-keys plan-approve: %d %s", code, out)
	}
	s.WaitFor(t, "done implementing", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
	p.WaitText(10*time.Second, "FAKE-REPLY: Implement the plan above.", "Code  ·")

	t.Log("-- the user's own Escape at work (twice: the first asks for the second): idle within seconds")
	typeIn("think a while SLOW:30s")
	s.Expect(t, 60*time.Second, event.StatusWorking)
	p.WaitText(15*time.Second, "esc interrupt")
	p.Keys("Escape")
	p.WaitText(10*time.Second, "esc again to interrupt")
	p.Keys("Escape")
	s.Expect(t, 15*time.Second, event.StatusIdle)

	t.Log("-- the pipeline restarted: the state and the meters go on, nothing counted twice")
	before := s.Last
	for i := len(pl.Stages) - 1; i >= 0; i-- {
		pl.Stages[i].Stop()
	}
	pl = h.StartPipeline(stages...)
	s = &Session{w: pl.Out, Agent: kilo.ID, ID: s.ID, Last: before}
	typeIn("after the restart")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	after := pl.Out.Await(t, "the new turn's meter", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Tokens != nil && e.Tokens.In > before.Tokens.In
	})
	var in int64
	r := kilo.NewStore(filepath.Join(h.Home, ".local", "share", "kilo", "kilo.db"), h.Getenv)
	if err := r.Read(func(e *event.Event) {
		if e.Session == s.ID {
			in += e.Tokens.In
		}
	}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if after.Tokens.In != in {
		t.Errorf("tokens in after the restart: %d; kilo.db's steps of the session: %d", after.Tokens.In, in)
	}

	t.Log("-- /exit: gone")
	typeIn("/exit")
	h.WaitState(60*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == s.ID {
				return st.Status == event.StatusGone
			}
		}
		return false
	}, "the session gone")
	t.Logf("statuses %s", strings.Join(s.History(), " → "))
	if bad := pl.Out.Bad(); len(bad) > 0 {
		t.Errorf("ag-fold wrote lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
}
