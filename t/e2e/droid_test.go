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
	"github.com/agwatch/ag/providers/droid"
)

// TestDroid runs the real Factory Droid in tmux with ag's hooks installed
// by ag-hook and the login pipeline watching: a plain turn with its token
// totals, an approved command (Up Up Up Enter, as ag-keys types it), a
// denied one (Stop), a question (AskUser) answered from its notification's
// option button (its digit), a spec
// approved (droid's plan), the user's own Escape while it works
// (idle_prompt alone), ag-detect on the dialog (one agent, not its exec child), a
// restart of the pipeline, and /quit (SessionEnd twice).
func TestDroid(t *testing.T) {
	t.Parallel()
	begin := time.Now()
	lw, _ := newDroidWorld(t, "droid")
	h, tm, pl, p, s := lw.h, lw.tm, lw.pl, lw.p, lw.s
	st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "droid")
	if !strings.HasPrefix(st, "droid: installed in ") || !strings.Contains(st, ".factory/settings.json") {
		t.Errorf("ag-hook status --agent droid: %q", st)
	}

	t.Log("-- plain prompt: idle → working → done, with token totals")
	p.Prompt("say hello SLOW:2s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	done := s.Expect(t, 40*time.Second, event.StatusDone)[0]
	p.WaitText(10*time.Second, "FAKE-REPLY: say hello SLOW:2s")
	if done.Prompt != "say hello SLOW:2s" || done.Pane != p.ID || done.Cwd != h.Project {
		t.Errorf("done state: prompt %q pane %q cwd %q", done.Prompt, done.Pane, done.Cwd)
	}
	m := pl.Out.Await(t, "with tokens", 20*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Tokens != nil && e.Tokens.Out > 0
	})
	if m.Model != "custom:Fake-Model-0" || m.Context == nil || m.Context.Used == 0 {
		t.Errorf("meters: model %q context %+v", m.Model, m.Context)
	}

	t.Log("-- approved: waiting(permission) → Up Up Up Enter → working → done")
	marker := filepath.Join(h.Project, "marker.txt")
	p.Prompt("RUN: echo marker > marker.txt")
	w := s.WaitFor(t, "waiting", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
	if w.Attention != event.AttnPermission || w.Tool != "Execute" || w.Text != "echo marker > marker.txt" {
		t.Errorf("waiting: attention %q tool %q text %q", w.Attention, w.Tool, w.Text)
	}
	p.WaitText(10*time.Second, DroidPermission)
	detectOne(t, h, tm, p, droid.ID, "Execute", "echo marker > marker.txt", func(pid int) bool { return pid == p.PID }) // the TUI, not its exec child
	p.Keys(droid.New().Keys().Approve...)
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(marker); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: %q, %v", b, err)
	}

	t.Log("-- denied: waiting → Escape → done (droid fires Stop)")
	p.Prompt("RUN: echo denied > denied.txt")
	s.WaitFor(t, "waiting", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
	p.WaitText(10*time.Second, DroidPermission)
	p.Keys("Escape")
	s.WaitFor(t, "done after the deny", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
	if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}

	t.Log("-- a question: waiting(question, AskUser) with its options → the second's button: 2 → done")
	from := len(lw.r.nd.Calls())
	p.Prompt(`CALL: AskUser {"questionnaire":"1. [question] Which colour\n[topic] Colour\n[option] Blue\n[option] Green"}`)
	q := s.WaitFor(t, "waiting", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
	if q.Attention != event.AttnQuestion || q.Tool != "AskUser" || q.Text != "Which colour" || !slices.Equal(q.Options, []string{"Blue", "Green"}) {
		t.Errorf("question wait: attention %q tool %q text %q options %q", q.Attention, q.Tool, q.Text, q.Options)
	}
	p.WaitText(10*time.Second, "Or type your own answer")
	// Droid's Notification follows its AskUser's wait under a new token.
	o := lw.r.offerWith(t, from, settledWait(t, h, p), p, "Factory Droid · project", "Has a question", "Has a question")
	if k := lw.r.pressOption(t, o, p, 2, "Green"); k.Status != "sent" || k.Text != "2" {
		t.Fatalf("the option's button: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	s.WaitFor(t, "done after the answer", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })

	t.Log("-- a spec (droid's plan): Shift+Tab to spec mode, ExitSpecMode → waiting(plan) → ag-keys plan-approve: 1, 1 once the autonomy menu shows → done")
	p.Keys("BTab")
	p.WaitText(10*time.Second, "── Spec")
	p.Prompt(`CALL: ExitSpecMode {"title":"Cache","plan":"1. Add a cache\n2. Test it"}`)
	pw := s.WaitFor(t, "waiting", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
	if pw.Attention != event.AttnPlan || pw.Tool != "ExitSpecMode" || pw.Text != "1. Add a cache\n2. Test it" {
		t.Errorf("plan wait: attention %q tool %q text %q", pw.Attention, pw.Tool, pw.Text)
	}
	p.WaitText(10*time.Second, "Proceed with the proposal")
	// Through ag-keys: "1" opens the autonomy menu, whose "1" is typed
	// once it shows (typed at once, it was lost on a loaded machine).
	out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "plan-approve", "--pane", p.ID, "-S", tm.Socket)
	if code != 0 || !strings.Contains(out, `"status":"sent"`) || !strings.Contains(out, `"text":"1, 30ms, 1 if plan-autonomy shows"`) {
		t.Fatalf("ag-keys plan-approve: exit %d\n%s", code, out)
	}
	s.WaitFor(t, "done after the spec", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
	// The footer's mode is drawn again a moment after the done state.
	for end := time.Now().Add(10 * time.Second); strings.Contains(p.Capture(), "── Spec"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Error("still in spec mode 10 s after the spec was approved")
			break
		}
	}

	t.Log("-- the user's own Escape while it works: working → idle")
	p.Prompt("say slowly SLOW:20s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	p.WaitText(10*time.Second, DroidWorking)
	p.Keys("Escape")
	s.Expect(t, 30*time.Second, event.StatusIdle)

	t.Log("-- pipeline restart: the session comes back idle, its tokens counted once")
	before := s.Last
	pl, s = restartPipeline(t, h, pl, droid.ID, s)
	sameTokens(t, s, event.StatusIdle, before)

	t.Log("-- /quit: gone")
	p.Prompt("/quit")
	s.Expect(t, 30*time.Second, event.StatusGone)
	p.WaitText(10*time.Second, "droid --resume "+s.ID)

	t.Logf("statuses: %s", strings.Join(s.History(), " → "))
	t.Logf("droid session %s: whole run %s", s.ID, time.Since(begin).Round(time.Millisecond))
}
