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
	"github.com/agwatch/ag/providers/qwen"
)

// TestQwen runs the real Qwen Code in tmux with ag's hooks installed by
// ag-hook and the login pipeline watching: a plain turn with its meters,
// an approved command, a denied one (no Stop: idle_prompt alone ends it),
// the user's own Escape while it works, a question answered from its
// notification's option button (its digit),
// a plan approved with 3, detection of the one agent behind the two node
// launchers, a restart of the pipeline, and /quit.
func TestQwen(t *testing.T) {
	t.Parallel()
	begin := time.Now()
	lw, _ := newQwenWorld(t, "qwen")
	h, tm, pl, p, s := lw.h, lw.tm, lw.pl, lw.p, lw.s
	st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "qwen")
	if !strings.HasPrefix(st, "qwen: installed in ") || !strings.Contains(st, ".qwen/settings.json") {
		t.Errorf("ag-hook status --agent qwen: %q", st)
	}

	t.Log("-- plain prompt: idle → working → done, with meters")
	p.Prompt("say hello SLOW:2s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	done := s.Expect(t, 40*time.Second, event.StatusDone)[0]
	p.WaitText(10*time.Second, "FAKE-REPLY: say hello SLOW:2s")
	if done.Prompt != "say hello SLOW:2s" || done.Pane != p.ID || done.Cwd != h.Project {
		t.Errorf("done state: prompt %q pane %q cwd %q", done.Prompt, done.Pane, done.Cwd)
	}
	if !strings.Contains(done.Transcript, filepath.Join(h.Home, ".qwen", "projects")) {
		t.Errorf("transcript %q", done.Transcript)
	}
	m := pl.Out.Await(t, "with model and context", 15*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Model == "fake-model" && e.Context != nil && e.Context.Used > 0
	})
	if m.Context.Size != qwen.DefaultWindow || m.Tokens == nil || m.Tokens.CacheRead == 0 {
		t.Errorf("meters: context %+v tokens %+v; want the 200000 window Stop names, cached tokens apart", m.Context, m.Tokens)
	}

	t.Log("-- approved: waiting(permission) → 1 → working → done")
	marker := filepath.Join(h.Project, "marker.txt")
	p.Prompt("RUN: echo marker > marker.txt")
	sts := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	if w := sts[1]; w.Attention != event.AttnPermission || w.Tool != "run_shell_command" || w.Text != "echo marker > marker.txt" {
		t.Errorf("waiting: attention %q tool %q text %q", w.Attention, w.Tool, w.Text)
	}
	p.WaitText(10*time.Second, QwenPermission)
	detectOne(t, h, tm, p, qwen.ID, "run_shell_command", "", func(pid int) bool { return ppid(ppid(pid)) == p.PID }) // the innermost node
	p.Keys("1")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(marker); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: %q, %v", b, err)
	}

	t.Log("-- denied: waiting → Escape → idle (no Stop: idle_prompt alone)")
	p.Prompt("RUN: echo denied > denied.txt")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	p.WaitText(10*time.Second, QwenPermission)
	p.Keys("Escape")
	s.Expect(t, 30*time.Second, event.StatusIdle)
	if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}

	t.Log("-- the user's own Escape while it works: working → idle")
	p.Prompt("say slowly SLOW:20s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	p.WaitText(10*time.Second, QwenWorking)
	p.Keys("Escape")
	s.Expect(t, 30*time.Second, event.StatusIdle)

	t.Log("-- a question: waiting(question) with its options → the second's button: 2 → done")
	from := len(lw.r.nd.Calls())
	p.Prompt(`CALL: ask_user_question {"questions":[{"question":"Which colour","header":"Colour","multiSelect":false,"options":[{"label":"Blue","description":"the sky"},{"label":"Green","description":"grass"}]}]}`)
	q := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if q.Attention != event.AttnQuestion || q.Tool != "ask_user_question" || q.Text != "Which colour" || !slices.Equal(q.Options, []string{"Blue", "Green"}) {
		t.Errorf("question wait: attention %q tool %q text %q options %q", q.Attention, q.Tool, q.Text, q.Options)
	}
	o := lw.r.offerWith(t, from, q, p, "Qwen Code · project", "Has a question", "Has a question\nWhich colour")
	p.WaitText(10*time.Second, "Type something")
	if k := lw.r.pressOption(t, o, p, 2, "Green"); k.Status != "sent" || k.Text != "2" {
		t.Fatalf("the option's button: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "Colour**: Green")

	t.Log("-- a plan: /approval-mode plan, exit_plan_mode → waiting(plan) → 3 → done")
	p.Prompt("/approval-mode plan")
	p.WaitText(10*time.Second, "plan mode")
	p.Prompt(`CALL: exit_plan_mode {"plan":"# Plan\n\n1. Add a cache\n2. Test it"}`)
	pw := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if pw.Attention != event.AttnPlan || pw.Tool != "exit_plan_mode" || !strings.Contains(pw.Text, "1. Add a cache") {
		t.Errorf("plan wait: attention %q tool %q text %q", pw.Attention, pw.Tool, pw.Text)
	}
	p.WaitText(10*time.Second, "Yes, and manually approve edits")
	p.Keys("3")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "User approved")

	t.Log("-- pipeline restart: the session comes back done, its tokens counted once")
	before := s.Last
	pl, s = restartPipeline(t, h, pl, qwen.ID, s)
	sameTokens(t, s, event.StatusDone, before)

	t.Log("-- /quit: gone")
	p.Prompt("/quit")
	s.Expect(t, 30*time.Second, event.StatusGone)

	if bad := pl.Out.Bad(); len(bad) > 0 {
		t.Errorf("ag-fold wrote lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
	t.Logf("statuses: %s", strings.Join(s.History(), " → "))
	t.Logf("qwen session %s: whole run %s", s.ID, time.Since(begin).Round(time.Millisecond))
}
