//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
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

// Screen texts of Gemini CLI 0.61.0's other waits.
const (
	GeminiQuestion = "Answer Questions"
	GeminiPlan     = "Ready to start implementation?"
	GeminiEdit     = "Apply this change?"
	GeminiPlanMode = "plan Shift+Tab to manual" // the footer in plan mode
	GeminiDefault  = "Shift+Tab to accept edits"
)

// geminiAsk is a prompt that makes the fake model ask a question with two
// options (no "?": Gemini drops it when typed).
const geminiAsk = `CALL: ask_user {"questions":[{"question":"Which colour","header":"Colour","type":"choice",` +
	`"options":[{"label":"Blue","description":"the sky"},{"label":"Green","description":"grass"}]}]}`

// TestGeminiQuestion: the real Gemini CLI asks a question (ask_user) —
// waiting (question, ask_user, the question) from the hooks, the pane's
// "Answer Questions" read the same by ag-detect — answered through ag-keys
// (the text pasted, Enter once shown: the model gets the answer; an
// option's label: its digit), dismissed with
// Escape, cancelled with Ctrl+C (the chat records the cancel before the
// call), and Ctrl+C twice during one quits; a command run in shell mode
// starts no turn and a reply at the shell-mode composer is refused;
// /chat save and resume keep the session; a pane closed during a question
// ends its session.
func TestGeminiQuestion(t *testing.T) {
	t.Parallel()
	lw, api := newGeminiWorld(t, "question", false, fakegemini.Options{})
	h, tm, pl, p, s := lw.h, lw.tm, lw.pl, lw.p, lw.s

	t.Log("-- answered through ag-keys: waiting(question) → answer → working → done")
	w := askColour(t, p, s)
	pw := detectWait(t, h, tm, p)
	if pw.Attention != event.AttnQuestion || pw.Tool != "ask_user" || pw.Text != "Which colour" {
		t.Errorf("ag-detect pane wait: %s\nwant question, ask_user, Which colour", event.Marshal(&pw))
	}
	k := keysFor(t, h, tm, p, &w, "answer", "Green, but darker")
	if k.Text != `paste "Green, but darker", 150ms, Enter once shown` {
		t.Errorf("keys typed %q", k.Text)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "Colour → Green, but darker", "FAKE-DONE: tool result received")
	if r := lastResult(api, "ask_user"); !strings.Contains(r, `"Green, but darker"`) {
		t.Errorf("the model got %q for the question; want the answer typed", r)
	}

	t.Log("-- an answer that is an option's label, in another case: that option's digit")
	w = askColour(t, p, s)
	if k := keysFor(t, h, tm, p, &w, "answer", "green"); k.Text != "2" {
		t.Errorf("keys typed %q; want 2, Green's digit", k.Text)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "Colour → Green", "FAKE-DONE: tool result received")
	if r := lastResult(api, "ask_user"); !strings.Contains(r, `"Green"`) || strings.Contains(r, "darker") {
		t.Errorf("the model got %q for the question; want the option Green", r)
	}

	t.Log("-- dismissed with Escape: waiting → idle, the model asked nothing more")
	askColour(t, p, s)
	n := turns(api)
	p.Keys("Escape")
	s.Expect(t, 30*time.Second, event.StatusIdle)
	p.WaitText(10*time.Second, GeminiDenied)
	settled(t, h, p, s.ID, event.StatusIdle)
	if m := turns(api); m != n {
		t.Errorf("%d model requests after the question was dismissed", m-n)
	}

	t.Log("-- cancelled with Ctrl+C: \"Request cancelled.\", then the cancelled call: idle, no new turn")
	askColour(t, p, s)
	p.Keys("C-c")
	s.Expect(t, 30*time.Second, event.StatusIdle)
	p.WaitText(10*time.Second, GeminiDenied)
	settled(t, h, p, s.ID, event.StatusIdle)

	t.Log("-- shell mode: a command run there is no turn; a reply there is refused")
	time.Sleep(2 * time.Second) // "Press Ctrl+C again to exit." goes
	p.Keys("!")
	p.WaitText(10*time.Second, "shell mode enabled")
	p.Type("echo shellmode")
	p.WaitText(10*time.Second, "Shell Command echo shellmode")
	settled(t, h, p, s.ID, event.StatusIdle)
	out, err := runKeys(h, tm, "reply", "rm -rf build", "--pane", p.ID)
	if err == nil || !strings.Contains(out, `"status":"refused"`) || !strings.Contains(out, "shell mode") {
		t.Errorf("ag-keys reply in shell mode: %v\n%s", err, out)
	}
	p.Keys("Escape")
	p.WaitText(10*time.Second, GeminiIdle)
	keysFor(t, h, tm, p, nil, "reply", "say after the shell")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: say after the shell")

	t.Log("-- /chat save and /chat resume: no hook, the same session goes on")
	p.GeminiType("/chat save t1")
	p.WaitText(10*time.Second, "Conversation checkpoint saved with tag: t1")
	p.GeminiType("say after the save")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.GeminiType("/chat resume t1")
	// The history shown again is the saved one: the later turn goes.
	for deadline := time.Now().Add(15 * time.Second); strings.Contains(p.Capture(), "FAKE-REPLY: say after the save"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("/chat resume t1 showed no saved history:\n%s", p.Capture())
		}
	}
	settled(t, h, p, s.ID, event.StatusDone)
	p.GeminiType("say after the resume")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: say after the resume")

	t.Log("-- a pane closed during a question: gone")
	q := h.StartGemini(tm, "closed", lw.bin)
	q.GeminiType(geminiAsk)
	qw := pl.Out.Await(t, "a question in the pane to close", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == gemini.ID && e.Pane == q.ID && e.Status == event.StatusWaiting
	})
	sq := pl.Out.Session(gemini.ID, qw.Session)
	sq.Last = qw
	tm.Run("kill-pane", "-t", q.ID)
	sq.WaitFor(t, "gone after its pane closed", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusGone })

	t.Log("-- Ctrl+C twice during a question quits: gone (exit)")
	askColour(t, p, s)
	p.Keys("C-c")
	p.WaitText(10*time.Second, "Press Ctrl+C again to exit")
	p.Keys("C-c")
	g := s.WaitFor(t, "gone after Ctrl+C twice", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusGone })
	if g.Reason != "exit" {
		t.Errorf("gone: reason %q, want exit", g.Reason)
	}
	t.Logf("statuses: %s", strings.Join(s.History(), " → "))
}

// TestGeminiPlanAndEdits: plan mode on the real Gemini CLI — entering it
// is a permission (enter_plan_mode) approved with 1; the model writes its
// plan; exit_plan_mode is a plan wait (the plan's text from the file) that
// ag-keys answers with feedback (pasted, Enter once shown: still planning),
// refuses (Escape: still planning, nothing asked of the model) and
// approves (2: default mode, edits still asked about); leaving plan mode
// with Shift+Tab starts no turn. Then file edits: write_file approved (the
// file written), replace denied (the file as it was), each screen read by
// ag-detect as Gemini shows it.
func TestGeminiPlanAndEdits(t *testing.T) {
	t.Parallel()
	lw, api := newGeminiWorld(t, "plan", false, fakegemini.Options{})
	h, tm, p, s := lw.h, lw.tm, lw.p, lw.s

	t.Log("-- entering plan mode: waiting(permission, enter_plan_mode) → 1 → done, plan mode on")
	p.GeminiType(`CALL: enter_plan_mode {"reason":"plan the change first"}`)
	w := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if w.Attention != event.AttnPermission || w.Tool != "enter_plan_mode" || !strings.Contains(w.Text, "read-only") {
		t.Errorf("waiting state: attention %q tool %q text %q; want permission, enter_plan_mode, what it means", w.Attention, w.Tool, w.Text)
	}
	p.WaitText(10*time.Second, "Enter Plan Mode", "Do you want to proceed?")
	if k := keysFor(t, h, tm, p, &w, "approve", ""); k.Text != "1" {
		t.Errorf("approve typed %q", k.Text)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, GeminiPlanMode)

	t.Log("-- the plan, written to the session's plans folder (no prompt in plan mode)")
	writePlan(t, p, s)

	exit := func() event.Event {
		t.Helper()
		p.GeminiType(`CALL: exit_plan_mode {"plan_filename":"colour.md"}`)
		w := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
		if w.Attention != event.AttnPlan || w.Tool != "exit_plan_mode" || w.Text != geminiPlan {
			t.Errorf("waiting state: attention %q tool %q text %q; want plan, exit_plan_mode, the plan", w.Attention, w.Tool, w.Text)
		}
		p.WaitText(10*time.Second, GeminiPlan, "Yes, manually accept edits")
		return w
	}

	t.Log("-- feedback: reply → the text pasted, Enter once shown → the plan rejected with it, still planning")
	w = exit()
	if pw := detectWait(t, h, tm, p); pw.Attention != event.AttnPlan || pw.Tool != "exit_plan_mode" || !strings.HasPrefix(pw.Text, "Plan: paint it") {
		t.Errorf("ag-detect pane wait: %s\nwant plan, exit_plan_mode, the plan as shown", event.Marshal(&pw))
	}
	if k := keysFor(t, h, tm, p, &w, "reply", "add a test step"); k.Text != `paste "add a test step", 150ms, Enter once shown` {
		t.Errorf("reply typed %q", k.Text)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "Feedback: add a test step", GeminiPlanMode)
	if r := lastResult(api, "exit_plan_mode"); !strings.Contains(r, "Plan rejected. User feedback: add a test step") {
		t.Errorf("the model got %q for the plan", r)
	}

	t.Log("-- refused: plan-deny → Escape → idle, still planning")
	w = exit()
	n := turns(api)
	if k := keysFor(t, h, tm, p, &w, "plan-deny", ""); k.Text != "Escape" {
		t.Errorf("plan-deny typed %q", k.Text)
	}
	s.Expect(t, 30*time.Second, event.StatusIdle)
	p.WaitText(10*time.Second, GeminiDenied, GeminiPlanMode)
	settled(t, h, p, s.ID, event.StatusIdle)
	if m := turns(api); m != n {
		t.Errorf("%d model requests after the plan was refused", m-n)
	}

	t.Log("-- approved: approve → 2 (edits still asked about) → done, default mode")
	w = exit()
	if k := keysFor(t, h, tm, p, &w, "approve", ""); k.Text != "2" {
		t.Errorf("approve typed %q; want 2, never 1 (every edit accepted)", k.Text)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "Plan approved", GeminiDefault)
	if r := lastResult(api, "exit_plan_mode"); !strings.Contains(r, "Plan approved. Switching to Default mode (edits will require confirmation)") {
		t.Errorf("the model got %q for the plan", r)
	}

	t.Log("-- Shift+Tab into plan mode and out again: Gemini's note to the model is no turn")
	p.Keys("BTab")
	p.WaitText(10*time.Second, "auto-accept edits")
	p.Keys("BTab")
	p.WaitText(10*time.Second, GeminiPlanMode)
	p.Keys("BTab")
	p.WaitText(10*time.Second, GeminiDefault)
	settled(t, h, p, s.ID, event.StatusDone)

	t.Log("-- write_file: waiting(permission, write_file) → 1 → the file written, done")
	colour := filepath.Join(h.Project, "colour.txt")
	args, _ := json.Marshal(map[string]string{"file_path": colour, "content": "green\nblue\n"})
	p.GeminiType("CALL: write_file " + string(args))
	w = s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if w.Attention != event.AttnPermission || w.Tool != "write_file" || w.Text != colour {
		t.Errorf("waiting state: attention %q tool %q text %q; want permission, write_file, %s", w.Attention, w.Tool, w.Text, colour)
	}
	p.WaitText(10*time.Second, "WriteFile", GeminiEdit)
	if pw := detectWait(t, h, tm, p); pw.Tool != "write_file" || pw.Text != "Writing to colour.txt" {
		t.Errorf("ag-detect pane wait: %s\nwant permission, write_file, Writing to colour.txt", event.Marshal(&pw))
	}
	if _, err := os.Stat(colour); err == nil {
		t.Fatal("colour.txt exists before the write was approved")
	}
	keysFor(t, h, tm, p, &w, "approve", "")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(colour); err != nil || string(b) != "green\nblue\n" {
		t.Errorf("the approved write: colour.txt %q, %v", b, err)
	}

	t.Log("-- replace: waiting(permission, replace) → Escape → idle, the file as it was")
	args, _ = json.Marshal(map[string]string{"file_path": colour, "old_string": "blue", "new_string": "red", "instruction": "blue becomes red"})
	p.GeminiType("CALL: replace " + string(args))
	w = s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if w.Tool != "replace" || w.Text != colour {
		t.Errorf("waiting state: tool %q text %q; want replace, %s", w.Tool, w.Text, colour)
	}
	p.WaitText(10*time.Second, "Edit", GeminiEdit)
	if pw := detectWait(t, h, tm, p); pw.Tool != "replace" || pw.Text != "colour.txt: blue => red" {
		t.Errorf("ag-detect pane wait: %s\nwant permission, replace, colour.txt: blue => red", event.Marshal(&pw))
	}
	if k := keysFor(t, h, tm, p, &w, "deny", ""); k.Text != "Escape" {
		t.Errorf("deny typed %q", k.Text)
	}
	s.Expect(t, 30*time.Second, event.StatusIdle)
	p.WaitText(10*time.Second, GeminiDenied)
	settled(t, h, p, s.ID, event.StatusIdle)
	if b, _ := os.ReadFile(colour); string(b) != "green\nblue\n" {
		t.Errorf("the denied edit changed colour.txt: %q", b)
	}
	t.Logf("statuses: %s", strings.Join(s.History(), " → "))
}

// geminiPlan is the plan writePlan has the model write.
const geminiPlan = "# Plan: paint it\n\n1. Write colour.txt with green\n2. Check it"

// writePlan has the model (in plan mode) write geminiPlan to colour.md in
// the session's plans folder, which takes no prompt.
func writePlan(t *testing.T, p *Pane, s *Session) {
	t.Helper()
	plans := filepath.Join(filepath.Dir(filepath.Dir(s.Last.Transcript)), s.ID, "plans")
	args, _ := json.Marshal(map[string]string{"file_path": filepath.Join(plans, "colour.md"), "content": geminiPlan})
	p.GeminiType("CALL: write_file " + string(args))
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(plans, "colour.md")); err != nil || string(b) != geminiPlan {
		t.Fatalf("the plan file: %q, %v", b, err)
	}
}

// askColour types geminiAsk and expects working → waiting(question,
// ask_user, the question, its options) with the dialog on screen.
func askColour(t *testing.T, p *Pane, s *Session) event.Event {
	t.Helper()
	p.GeminiType(geminiAsk)
	w := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if w.Attention != event.AttnQuestion || w.Tool != "ask_user" || w.Text != "Which colour" || w.Pane != p.ID || !slices.Equal(w.Options, []string{"Blue", "Green"}) {
		t.Errorf("waiting state: attention %q tool %q text %q pane %q options %q; want question, ask_user, Which colour, %s, [Blue Green]",
			w.Attention, w.Tool, w.Text, w.Pane, w.Options, p.ID)
	}
	p.WaitText(10*time.Second, GeminiQuestion, "Enter a custom value")
	return w
}

// keysFor runs ag-keys action (with text) on p under wt's token, once the
// state file has it (nil: the pane's session as it is), and returns its
// keys event, which must say sent.
func keysFor(t *testing.T, h *Harness, tm *Tmux, p *Pane, wt *event.Event, action, text string) event.Event {
	t.Helper()
	args := []string{action}
	if text != "" {
		args = append(args, text)
	}
	args = append(args, "--pane", p.ID)
	if wt != nil {
		h.WaitState(10*time.Second, func(states []event.Event) bool {
			cur, ok := state.ForPane(states, p.ID)
			return ok && cur.Token == wt.Token
		}, "the token "+wt.Token)
		args = append(args, "--token", wt.Token)
	}
	out, err := runKeys(h, tm, args...)
	var k event.Event
	if err != nil || event.Decode([]byte(strings.TrimSpace(out)), &k) != nil || k.Status != "sent" {
		t.Fatalf("ag-keys %s: %v\n%s\nscreen:\n%s", action, err, out, p.Capture())
	}
	return k
}

// detectWait runs ag-detect --panes once and returns the wait it sees in
// p.
func detectWait(t *testing.T, h *Harness, tm *Tmux, p *Pane) event.Event {
	t.Helper()
	out := h.Run(30*time.Second, Bin(t, "ag-detect"), "-S", tm.Socket, "--panes")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e event.Event
		if event.Decode([]byte(line), &e) == nil && e.Kind == event.Wait && e.Pane == p.ID {
			return e
		}
	}
	t.Fatalf("ag-detect --panes: no wait for pane %s:\n%s\nscreen:\n%s", p.ID, out, p.Capture())
	return event.Event{}
}

// turns counts the fake API's main-turn requests (those offering tools).
func turns(api *fakegemini.Server) int {
	n := 0
	for _, r := range api.Requests() {
		if r.Tools > 0 {
			n++
		}
	}
	return n
}

// lastResult is the newest function response of tool the fake API got.
func lastResult(api *fakegemini.Server, tool string) string {
	rs := api.Requests()
	for i := len(rs) - 1; i >= 0; i-- {
		if strings.HasPrefix(rs[i].Result, tool+" ") {
			return rs[i].Result
		}
	}
	return ""
}
