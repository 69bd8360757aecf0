//go:build e2e

package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// TestCodexQuestion runs request_user_input on the real Codex CLI: a
// question only its screen shows (no hook fires for it), answered only in
// Plan mode. In Default mode the call returns "unavailable" at once and
// nothing waits; in Plan mode the picker is a wait (question, its text
// and options) in its pane, answered with ag-keys by an option's label and
// in the user's own words (the notes of "None of the above"); a form of
// two questions is two waits, one after the other; the user's own Escape
// interrupts the turn and the wait ends. A plan (<proposed_plan>) brings
// "Implement this plan?": a plan wait, refused (3, Plan mode kept),
// refused with what to change (3, the text) and approved (1: Default mode,
// the plan implemented).
func TestCodexQuestion(t *testing.T) {
	t.Parallel()
	bin := Install(t, Codex)
	CheckVersion(t, bin, Installed(bin, Codex.Version))
	h := New(t)
	api := h.FakeOpenAI(openai.Options{InputTokens: codexInput})
	h.CodexConfig(bin, api)
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "codex")
	tm := h.StartTmux()
	pl := h.StartPipeline(append(LoginStages(tm), []string{"ag-fold"})...)
	pane := h.StartCodex(tm, "codex", bin)
	s := pl.Out.Session(codex.ID, "")
	colour := `{"id":"colour","header":"Colour","question":"Which colour?","options":[{"label":"Blue","description":"the sky"},{"label":"Green","description":"grass"}]}`
	ask := func(questions ...string) {
		t.Helper()
		pane.Type(`CALL: request_user_input {"questions":[` + strings.Join(questions, ",") + `]}`)
	}
	waiting := func(text string, options ...string) event.Event {
		t.Helper()
		return s.WaitFor(t, "waiting on "+text, 30*time.Second, func(e *event.Event) bool {
			return e.Status == event.StatusWaiting && e.Attention == event.AttnQuestion && e.Text == text &&
				slices.Equal(e.Options, options)
		})
	}
	answer := func(w event.Event, text string) {
		t.Helper()
		if out, code := paneKeys(t, h, pane, s, event.StatusWaiting, "answer", append([]string{"--token", w.Token}, text)...); code != 0 {
			t.Fatalf("ag-keys answer %q: exit %d %s", text, code, out)
		}
	}
	done := func(what string) {
		t.Helper()
		s.WaitFor(t, what, 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
	}

	t.Log("-- Default mode: the call returns unavailable at once, nothing waits")
	ask(colour)
	done("done, the question unavailable")
	if slices.Contains(s.History(), event.StatusWaiting) {
		t.Errorf("a wait in Default mode: %v", s.History())
	}

	t.Log("-- Plan mode (Shift+Tab): the picker is a wait, its options read; answered by a label")
	pane.WaitText(15*time.Second, "Ask Codex to do anything")
	for i := 0; !strings.Contains(pane.Capture(), "Plan mode"); i++ {
		if i == 5 {
			t.Fatalf("Shift+Tab: no Plan mode in\n%s", pane.Capture())
		}
		pane.Keys("BTab") // a key Codex takes while it redraws is lost
		time.Sleep(time.Second)
	}
	ask(colour)
	w := waiting("Which colour?", "Blue", "Green")
	if w.Tool != "request_user_input" || w.Pane != pane.ID {
		t.Errorf("the wait: tool %q pane %q; want request_user_input in %s", w.Tool, w.Pane, pane.ID)
	}
	answer(w, "green")
	pane.WaitText(15*time.Second, "answer: Green")
	done("done after the answer")

	t.Log("-- an answer in the user's own words: the notes of None of the above")
	ask(colour)
	answer(waiting("Which colour?", "Blue", "Green"), "Teal please")
	pane.WaitText(15*time.Second, "answer: None of the above", "note: Teal please")
	done("done after the own answer")

	t.Log("-- a form of two questions: two waits, one after the other")
	ask(`{"id":"size","header":"Size","question":"Which size?","options":[{"label":"Small","description":"s"},{"label":"Large","description":"l"}]}`, colour)
	answer(waiting("Which size?", "Small", "Large"), "Large")
	answer(waiting("Which colour?", "Blue", "Green"), "Blue")
	pane.WaitText(15*time.Second, "answer: Large", "answer: Blue")
	done("done after the form")

	t.Log("-- a plan (<proposed_plan>): Implement this plan? is a plan wait; plan-deny (3) stays in Plan mode")
	plan := func() event.Event {
		t.Helper()
		pane.Type("PROPOSE: Add a greeting")
		return s.WaitFor(t, "waiting on the plan", 30*time.Second, func(e *event.Event) bool {
			return e.Status == event.StatusWaiting && e.Attention == event.AttnPlan && strings.HasPrefix(e.Text, "# Add a greeting")
		})
	}
	keysOn := func(w event.Event, action string, args ...string) {
		t.Helper()
		if out, code := paneKeys(t, h, pane, s, event.StatusWaiting, action, append([]string{"--token", w.Token}, args...)...); code != 0 {
			t.Fatalf("ag-keys %s: exit %d %s", action, code, out)
		}
	}
	keysOn(plan(), "plan-deny")
	s.WaitFor(t, "no longer waiting", 30*time.Second, func(e *event.Event) bool { return e.Status != event.StatusWaiting })
	pane.WaitText(10*time.Second, "Plan mode (shift+tab")
	t.Log("-- refused with what to change (reply): 3, the text in Plan mode's composer, a new turn")
	keysOn(plan(), "reply", "make it shorter")
	pane.WaitText(15*time.Second, "FAKE-REPLY: make it shorter")
	done("done after the reply")
	t.Log("-- plan-approve (1): Default mode, the plan implemented")
	keysOn(plan(), "plan-approve")
	pane.WaitText(15*time.Second, "Implement the plan.", "for Default mode")
	done("done implementing")
	for i := 0; !strings.Contains(pane.Capture(), "Plan mode"); i++ {
		if i == 5 {
			t.Fatalf("Shift+Tab: no Plan mode in\n%s", pane.Capture())
		}
		pane.Keys("BTab")
		time.Sleep(time.Second)
	}

	t.Log("-- the user's own Escape on the question: the turn interrupted, no longer waiting")
	ask(colour)
	waiting("Which colour?", "Blue", "Green")
	pane.Keys("Escape")
	pane.WaitText(15*time.Second, "Conversation interrupted")
	s.WaitFor(t, "no longer waiting", 30*time.Second, func(e *event.Event) bool { return e.Status != event.StatusWaiting })
	t.Logf("statuses %s", strings.Join(s.History(), " → "))
}
