package fold

import (
	"strconv"
	"testing"

	"github.com/agwatch/ag/filters/event"
)

func TestTokens(t *testing.T) {
	t.Run("since moves only on a status edge, gen on attention or tool", func(t *testing.T) {
		f := newFolder(t)
		f.apply(ev(event.TurnStart, hook, 1, run("p1")))
		f.apply(ev(event.Wait, hook, 3, attn("permission"), tool("Bash", "")))
		w1 := f.state()
		f.apply(ev(event.Wait, hook, 8, attn("permission"), tool("Write", "")))
		w2 := f.state()
		if !w2.Since.Equal(w1.Since.Time) || !w1.Since.Equal(at(3)) {
			t.Errorf("waiting→waiting moved since: %s → %s", w1.Since, w2.Since)
		}
		if w2.Gen <= w1.Gen || w2.Token == w1.Token {
			t.Errorf("tool swap kept gen %d→%d token %s→%s", w1.Gen, w2.Gen, w1.Token, w2.Token)
		}
		f.apply(ev(event.Wait, pn, 9, attn("question")))
		if w3 := f.state(); w3.Gen <= w2.Gen || w3.Attention != "question" {
			t.Errorf("relabel kept gen %d→%d (%s)", w2.Gen, w3.Gen, w3.Attention)
		}
		want := "1777636803000." // since at(3) in unix ms
		if got := f.state().Token; got[:len(want)] != want {
			t.Errorf("token %q, want prefix %q", got, want)
		}
	})
	t.Run("meters change the state but not gen", func(t *testing.T) {
		f := newFolder(t)
		f.apply(ev(event.TurnStart, hook, 1))
		before := f.state()
		out := f.apply(ev(event.Meter, log, 2, toks(10, 5), ctxw(1000, 200000)))
		if len(out) != 1 {
			t.Fatalf("meter wrote %d states, want 1", len(out))
		}
		if out[0].Gen != before.Gen || out[0].Token != before.Token {
			t.Errorf("meter bumped gen/token: %s → %s", before.Token, out[0].Token)
		}
	})
	t.Run("an event that changes nothing writes nothing", func(t *testing.T) {
		f := newFolder(t)
		f.apply(ev(event.TurnStart, hook, 1, run("p1"), text("go")))
		if out := f.apply(ev(event.TurnStart, log, 1.5, run("p1"), text("go"))); len(out) != 0 {
			t.Errorf("repeat turn.start wrote %d states", len(out))
		}
	})
}

func TestMeters(t *testing.T) {
	f := newFolder(t)
	f.apply(
		ev(event.TurnStart, hook, 1),
		ev(event.Meter, log, 2, toks(100, 20), ctxw(5000, 200000), model("claude-opus-4")),
		ev(event.Meter, log, 3, toks(50, 10), ctxw(7000, 200000)),
		ev(event.Meter, log, 4, sub("a1"), toks(7, 3), ctxw(99, 100), model("claude-haiku")),
		ev(event.Meter, log, 4, toks(1000, 1000), id("meter/log/3")), // duplicate of the second
		ev(event.Meter, event.SrcStatusline, 5, cost(0.5)),
		ev(event.Meter, event.SrcStatusline, 6, cost(0.75)),
	)
	s := f.state()
	if s.Tokens == nil || *s.Tokens != (event.Tokens{In: 157, Out: 33}) {
		t.Errorf("tokens %+v, want in 157 out 33 (summed, sub-agent included, duplicate once)", s.Tokens)
	}
	if s.Context == nil || s.Context.Used != 7000 || s.Context.Size != 200000 {
		t.Errorf("context %+v, want the main thread's latest 7000/200000", s.Context)
	}
	if s.Model != "claude-opus-4" {
		t.Errorf("model %q, want the main thread's", s.Model)
	}
	if s.CostUSD == nil || *s.CostUSD != 0.75 {
		t.Errorf("cost %v, want 0.75 (replaced, not summed)", s.CostUSD)
	}
	lim := []event.Limit{{Window: "5h", UsedPct: 12.5}}
	e := ev(event.Meter, event.SrcStatusline, 7)
	e.Limits = lim
	f.apply(e)
	lim[0].UsedPct = 99 // the fold keeps its own copy
	if got := f.state().Limits; len(got) != 1 || got[0].UsedPct != 12.5 {
		t.Errorf("limits %+v, want 5h 12.5%%", got)
	}
}

func TestContext(t *testing.T) {
	f := newFolder(t)
	e := ev(event.SessionStart, hook, 1, pid(77), tty("/dev/pts/3"), pane("%4"), cwd("/src/app"), model("opus"))
	e.Transcript = "/h/.claude/projects/x/s1.jsonl"
	f.apply(e,
		ev(event.TurnStart, log, 2, branch("main"), text("add tests"), run("p1")),
		ev(event.ToolStart, log, 3, tool("Bash", "t1")),
	)
	s := f.state()
	got := []string{s.Pane, s.TTY, s.Cwd, s.Branch, s.Transcript, s.Model, s.Prompt, s.Run}
	want := []string{"%4", "/dev/pts/3", "/src/app", "main", "/h/.claude/projects/x/s1.jsonl", "opus", "add tests", "p1"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d = %q, want %q (all: %q)", i, got[i], want[i], got)
		}
	}
	if s.PID != 77 {
		t.Errorf("pid %d, want 77", s.PID)
	}
	if ps := f.Procs(); len(ps) != 1 || ps[0].PID != 77 || !ps[0].Seen.Equal(at(1)) {
		t.Errorf("Procs() = %+v", ps)
	}
}

func TestPaneSightings(t *testing.T) {
	f := newFolder(t)
	up := event.New(event.ProcUp, at(1), "claude", "")
	up.Src, up.PID, up.Pane, up.TTY, up.ID = proc, 500, "%7", "/dev/pts/9", "up"
	out := f.apply(&up)
	if len(out) != 1 || out[0].Session != "" || out[0].Pane != "%7" || out[0].Status != "idle" {
		t.Fatalf("proc.up without a session: %+v", out)
	}
	w := event.New(event.Wait, at(2), "claude", "")
	w.Src, w.Pane, w.Attention, w.ID = pn, "%7", "permission", "w"
	if out := f.apply(&w); len(out) != 1 || out[0].Status != "waiting" {
		t.Fatalf("pane wait on a pane-only sighting: %+v", out)
	}
	out = f.apply(ev(event.SessionStart, hook, 3, pane("%7"), pid(500)))
	if len(out) != 2 || out[0].Session != "" || out[0].Status != "gone" || out[0].Reason != "superseded" {
		t.Fatalf("session in the sighting's pane should retire it: %+v", out)
	}
	if f.Len() != 1 {
		t.Errorf("%d sessions, want 1", f.Len())
	}
	if s := f.state(); s.TTY != "/dev/pts/9" || s.PID != 500 {
		t.Errorf("session did not take over the sighting's tty/pid: %+v", s)
	}
	// A pane event without a session now lands on the session of its pane.
	w2 := event.New(event.Wait, at(4), "claude", "")
	w2.Src, w2.Pane, w2.Attention, w2.ID = pn, "%7", "question", "w2"
	f.apply(&w2)
	if s := f.state(); s.Status != "waiting" || s.Attention != "question" {
		t.Errorf("pane wait for the session's pane: %s/%s", s.Status, s.Attention)
	}
}

func TestGoneKeptThenDropped(t *testing.T) {
	f := newFolder(t)
	f.apply(ev(event.TurnStart, hook, 1), ev(event.SessionEnd, hook, 2))
	other := ev(event.TurnEnd, hook, 3, sess("s2"))
	f.apply(other)
	f.tick(2 + 9*60)
	if f.Len() != 2 {
		t.Fatalf("gone session dropped before 10 minutes")
	}
	before := f.Changes()
	f.tick(2 + 10*60)
	if f.Len() != 1 || f.States()[0].Session != "s2" {
		t.Errorf("after 10 minutes want only the done session s2, have %d", f.Len())
	}
	if f.Changes() == before {
		t.Errorf("dropping a session is a change (the state file must be rewritten)")
	}
}

// TestBackFromGoneUnplaced: a session quit in one pane and resumed in
// another (Codex's `resume --last`: its rollout's turn.start comes before
// the new process's hooks) is working at once, but not in the pane or
// process it left; the next event that names them places it. News that
// names its process places it at once, and news that does not revive it
// keeps where it was.
func TestBackFromGoneUnplaced(t *testing.T) {
	for _, c := range []struct {
		name string
		end  *event.Event
	}{
		{"ended by its hook", ev(event.SessionEnd, hook, 2, pid(100), pane("%1"), tty("/dev/pts/1"), reason("other"))},
		{"its process gone", ev(event.ProcDown, event.SrcFold, 2, pid(100))},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFolder(t)
			f.apply(ev(event.TurnStart, hook, 1, pid(100), pane("%1"), tty("/dev/pts/1")), c.end)
			f.apply(ev(event.Meter, log, 3, toks(1, 1))) // the transcript's last lines, read late
			if s := f.state(); s.Status != "gone" || s.Pane != "%1" || s.PID != 100 {
				t.Fatalf("gone: %s in %q pid %d, want gone in %%1, pid 100", s.Status, s.Pane, s.PID)
			}
			f.apply(ev(event.TurnStart, log, 10, run("p2")))
			if s := f.state(); s.Status != "working" || s.Pane != "" || s.PID != 0 || s.TTY != "" {
				t.Fatalf("resumed, seen in its transcript: %s in %q pid %d tty %q; want working, nowhere", s.Status, s.Pane, s.PID, s.TTY)
			}
			if p := f.Procs(); len(p) != 0 {
				t.Errorf("the process that went is still checked: %+v", p)
			}
			f.apply(ev(event.TurnStart, hook, 10.1, run("p2"), pid(200), pane("%2")))
			if s := f.state(); s.Status != "working" || s.Pane != "%2" || s.PID != 200 {
				t.Errorf("its hook: %s in %q pid %d, want working in %%2, pid 200", s.Status, s.Pane, s.PID)
			}
		})
	}
	f := newFolder(t)
	f.apply(ev(event.TurnStart, hook, 1, pid(100), pane("%1")), ev(event.SessionEnd, hook, 2, pid(100), pane("%1")))
	f.apply(ev(event.SessionStart, hook, 10, pid(300), pane("%3"), text("resume")))
	if s := f.state(); s.Status != "idle" || s.Pane != "%3" || s.PID != 300 {
		t.Errorf("resumed, its hook first: %s in %q pid %d, want idle in %%3, pid 300", s.Status, s.Pane, s.PID)
	}
}

// TestEndAfterBadEnd: a turn that failed or was interrupted is not made
// done by a later end of the same run, from either source, whatever the
// order the two arrive in (Claude writes turn_duration after an API
// error's line, and its StopFailure hook can come after both).
func TestEndAfterBadEnd(t *testing.T) {
	for _, c := range []struct {
		name, want string
		bad        *event.Event
	}{
		{"failed, in the transcript", "failed", ev(event.TurnFail, log, 2, run("p1"), reason("api_error"))},
		{"failed, by the hook", "failed", ev(event.TurnFail, hook, 2, run("p1"), reason("api_error"))},
		{"interrupted", "idle", ev(event.Interrupt, log, 2, run("p1"))},
	} {
		for _, end := range []*event.Event{
			ev(event.TurnEnd, log, 2.004, run("p1"), reason("turn_duration")),
			ev(event.TurnEnd, hook, 5, run("p1")),
		} {
			t.Run(c.name+" then "+end.Src, func(t *testing.T) {
				f := newFolder(t)
				f.apply(ev(event.TurnStart, hook, 1, run("p1")), c.bad, end)
				if s := f.state(); s.Status != c.want {
					t.Errorf("%s", s.Status)
				}
				// The next turn ends as any does.
				f.apply(ev(event.TurnStart, hook, 10, run("p2")), ev(event.TurnEnd, log, 11, run("p2")))
				if s := f.state(); s.Status != "done" {
					t.Errorf("the next turn: %s", s.Status)
				}
			})
		}
	}
}

func TestRestore(t *testing.T) {
	f := newFolder(t)
	f.apply(ev(event.TurnStart, hook, 1, run("p1")), ev(event.Wait, hook, 2, attn("plan"), tool("ExitPlanMode", "")),
		ev(event.Meter, log, 2.5, toks(10, 1)))
	saved := f.States()
	g := newFolder(t)
	for i := range saved {
		g.Apply(&saved[i])
	}
	if got, want := g.state(), f.state(); string(event.Marshal(&got)) != string(event.Marshal(&want)) {
		t.Errorf("restored\n%s\nwant\n%s", event.Marshal(&got), event.Marshal(&want))
	}
	// and folding goes on from there: a later tool.end ends the plan wait
	g.apply(ev(event.ToolEnd, hook, 9, tool("ExitPlanMode", "")))
	if s := g.state(); s.Status != "working" || s.Tokens.In != 10 {
		t.Errorf("after restore: %s tokens %+v", s.Status, s.Tokens)
	}
}

func TestSeenIsBounded(t *testing.T) {
	s := newSeen(3)
	for _, id := range []string{"a", "b", "c"} {
		if !s.add(id) {
			t.Fatalf("%s reported as seen", id)
		}
	}
	if s.add("a") {
		t.Errorf("a not remembered")
	}
	s.add("d") // forgets a
	if !s.add("a") || s.n != 3 {
		t.Errorf("ring did not forget the oldest (%d ids kept)", s.n)
	}
}

func TestContextFloorFromSessionStart(t *testing.T) {
	f := New(Defaults())
	start := ev(event.SessionStart, hook, 1)
	start.Context = &event.Context{Size: 1_000_000} // Claude "[1m]" selected at launch
	f.Apply(start)
	m := ev(event.Meter, log, 2)
	m.Context = &event.Context{Used: 110_000, Size: 200_000} // the transcript cannot tell
	f.Apply(m)
	st := f.States()[0]
	if st.Context == nil || st.Context.Size != 1_000_000 || st.Context.LeftPct == nil || *st.Context.LeftPct != 89 {
		t.Fatalf("context = %+v; want size 1000000, 89%% left", st.Context)
	}
}

// TestContextFloorFollowsTheModel: the declared window is the declared
// model's. After /model (Claude 2.1.197 offers "Sonnet 5" with 200k beside
// "Opus 4.8 (1M context)") the transcript's size for the new model stands;
// back on the first model its window holds again. Claude's statusLine names
// the window in use, smaller ones too; a restart keeps what the state said.
func TestContextFloorFollowsTheModel(t *testing.T) {
	meter := func(sec float64, src, m string, used, size int64) *event.Event {
		e := ev(event.Meter, src, sec, model(m))
		e.Context = &event.Context{Used: used, Size: size}
		return e
	}
	declared := func(sec float64, size int64) *event.Event {
		e := ev(event.Meter, log, sec, text("a display name"))
		e.Context = &event.Context{Size: size}
		return e
	}
	size := func(f *Folder) int64 {
		t.Helper()
		st := f.States()[0]
		if st.Context == nil {
			t.Fatal("no context")
		}
		return st.Context.Size
	}
	f := New(Defaults())
	start := ev(event.SessionStart, hook, 1, model("claude-opus-4-8"))
	start.Context = &event.Context{Size: 1_000_000}
	f.Apply(start)
	for _, step := range []struct {
		e    *event.Event
		want int64
	}{
		{meter(2, log, "claude-opus-4-8", 30_000, 200_000), 1_000_000},
		{meter(3, log, "claude-sonnet-5", 31_000, 200_000), 200_000},
		{meter(4, log, "claude-opus-4-8", 32_000, 200_000), 1_000_000},
		{meter(5, event.SrcStatusline, "claude-opus-4-8", 32_000, 200_000), 200_000},
		{meter(6, log, "claude-opus-4-8", 33_000, 200_000), 200_000},
		{meter(7, event.SrcStatusline, "claude-opus-4-8", 33_000, 1_000_000), 1_000_000},
		// /model read from the transcript: a size, nothing used or
		// counted, no model yet. It shows at once and holds for the
		// model the next response names ("/model opus" in 2.1.197 is
		// Opus 4.8 without the 1M window, the same API model name).
		{declared(8, 200_000), 200_000},
		{meter(9, log, "claude-opus-4-8", 34_000, 200_000), 200_000},
		{declared(10, 1_000_000), 1_000_000},
		{meter(11, log, "claude-opus-4-8", 35_000, 200_000), 1_000_000},
		{meter(12, log, "claude-sonnet-5", 36_000, 200_000), 200_000},
	} {
		f.Apply(step.e)
		if got := size(f); got != step.want {
			t.Fatalf("after %s %s at %s: size %d, want %d", step.e.Src, step.e.Model, step.e.T, got, step.want)
		}
	}
	// A restart keeps the window the state showed, for the state's model.
	f = New(Defaults())
	f.Apply(start)
	f.Apply(meter(2, log, "claude-opus-4-8", 30_000, 200_000))
	g := New(Defaults())
	g.Apply(&f.States()[0])
	g.Apply(meter(3, log, "claude-opus-4-8", 31_000, 200_000))
	if got := size(g); got != 1_000_000 {
		t.Errorf("after a restart: size %d, want the restored 1000000", got)
	}
}

func TestLeftPct(t *testing.T) {
	for _, tc := range []struct {
		used, size int64
		want       int
	}{{0, 200000, 100}, {999, 200000, 100}, {1000, 200000, 99}, {110000, 200000, 45}, {300000, 200000, 0}, {5, 0, 0}} {
		if got := LeftPct(tc.used, tc.size); got != tc.want {
			t.Errorf("LeftPct(%d, %d) = %d; want %d", tc.used, tc.size, got, tc.want)
		}
	}
}

// TestPanelessAdoption: a session that never learnt its process (Codex
// 0.17x's hooks run in a shared server with no terminal; rollouts name no
// process) takes the pane of the one pane-only sighting of its agent in its
// directory whose process started before the session's latest event — in
// either order of arrival — and never guesses between two.
func TestPanelessAdoption(t *testing.T) {
	sighting := func(sec float64, p string, n int, dir string) *event.Event {
		e := event.New(event.ProcUp, at(sec), "codex", "")
		e.Src, e.Pane, e.PID, e.TTY, e.Cwd, e.ID = proc, p, n, "/dev/pts/"+p[1:], dir, "up"+p+strconv.Itoa(n)
		return &e
	}
	turn := func(sec float64, s, dir string) *event.Event {
		return ev(event.TurnStart, log, sec, agent("codex"), sess(s), cwd(dir), id("t"+s+strconv.FormatFloat(sec, 'f', -1, 64)))
	}
	find := func(f *folder, s string) event.Event {
		for _, st := range f.States() {
			if st.Agent == "codex" && st.Session == s {
				return st
			}
		}
		t.Fatalf("no state for codex/%s", s)
		return event.Event{}
	}
	t.Run("sighting first", func(t *testing.T) {
		f := newFolder(t)
		f.apply(sighting(1, "%3", 300, "/p"))
		f.apply(turn(5, "x1", "/p"))
		if s := find(f, "x1"); s.Pane != "%3" || s.PID != 300 || s.TTY != "/dev/pts/3" || s.Status != "working" {
			t.Errorf("adopted: %s", event.Marshal(&s))
		}
		if f.Len() != 1 {
			t.Errorf("%d records, want the session alone", f.Len())
		}
	})
	t.Run("session first", func(t *testing.T) {
		f := newFolder(t)
		f.apply(turn(5, "x1", "/p"))
		f.apply(sighting(1, "%3", 300, "/p"))
		if s := find(f, "x1"); s.Pane != "%3" || s.PID != 300 {
			t.Errorf("adopted: %s", event.Marshal(&s))
		}
		if f.Len() != 1 {
			t.Errorf("%d records, want the session alone", f.Len())
		}
	})
	t.Run("launcher first: the native child's up revives the pane", func(t *testing.T) {
		f := newFolder(t)
		f.apply(sighting(1, "%3", 299, "/p"))
		down := *sighting(3, "%3", 299, "/p")
		down.Kind, down.ID = event.ProcDown, "down"
		f.apply(&down)
		f.apply(sighting(1.1, "%3", 300, "/p")) // started before the down was seen
		f.apply(turn(5, "x1", "/p"))
		if s := find(f, "x1"); s.Pane != "%3" || s.PID != 300 || s.Status != "working" {
			t.Errorf("adopted: %s", event.Marshal(&s))
		}
	})
	t.Run("two panes in one directory: no guess", func(t *testing.T) {
		f := newFolder(t)
		f.apply(sighting(1, "%3", 300, "/p"), sighting(1, "%4", 400, "/p"))
		f.apply(turn(5, "x1", "/p"))
		if s := find(f, "x1"); s.Pane != "" || s.PID != 0 {
			t.Errorf("guessed: %s", event.Marshal(&s))
		}
	})
	t.Run("two sessions in one directory: no guess", func(t *testing.T) {
		f := newFolder(t)
		f.apply(turn(5, "x1", "/p"), turn(6, "x2", "/p"))
		f.apply(sighting(1, "%3", 300, "/p"))
		if a, b := find(f, "x1"), find(f, "x2"); a.Pane != "" || b.Pane != "" {
			t.Errorf("guessed: %s / %s", a.Pane, b.Pane)
		}
	})
	t.Run("other directory, other agent, older session: no", func(t *testing.T) {
		f := newFolder(t)
		f.apply(sighting(10, "%3", 300, "/p"))
		f.apply(turn(5, "old", "/p"))                     // its events predate the process
		f.apply(turn(12, "else", "/q"))                   // another directory
		f.apply(ev(event.TurnStart, hook, 12, cwd("/p"))) // claude/s1: another agent
		for _, s := range []string{"old", "else"} {
			if st := find(f, s); st.Pane != "" {
				t.Errorf("%s adopted %s", s, st.Pane)
			}
		}
	})
	t.Run("two panes in one directory, both resumed: each its own (the command line names the session)", func(t *testing.T) {
		f := newFolder(t)
		a, b := sighting(1, "%3", 300, "/p"), sighting(1, "%4", 400, "/p")
		a.Session, b.Session = "x1", "x2"
		f.apply(a, b)
		f.apply(turn(5, "x2", "/p"), turn(6, "x1", "/p"))
		if x1, x2 := find(f, "x1"), find(f, "x2"); x1.Pane != "%3" || x1.PID != 300 || x2.Pane != "%4" || x2.PID != 400 ||
			x1.Status != "working" || x2.Status != "working" {
			t.Errorf("resumed sessions: %s / %s", event.Marshal(&x1), event.Marshal(&x2))
		}
		if f.Len() != 2 {
			t.Errorf("%d records, want the two sessions", f.Len())
		}
	})
	t.Run("a resumed pane beside a new one in one directory: the new session takes the other pane", func(t *testing.T) {
		f := newFolder(t)
		a := sighting(1, "%3", 300, "/p")
		a.Session = "x1"
		f.apply(a, sighting(1, "%4", 400, "/p"))
		f.apply(turn(5, "x1", "/p"), turn(6, "new", "/p"))
		if x1, n := find(f, "x1"), find(f, "new"); x1.Pane != "%3" || n.Pane != "%4" || n.PID != 400 {
			t.Errorf("resumed %s / new %s", event.Marshal(&x1), event.Marshal(&n))
		}
	})
	t.Run("resumed by name: the server's SessionEnd (no process) does not end it, its process's exit does", func(t *testing.T) {
		f := newFolder(t)
		f.apply(turn(2, "x1", "/p"))
		up := sighting(3, "%3", 300, "/p")
		up.Session = "x1"
		f.apply(up)
		f.apply(ev(event.SessionEnd, hook, 4, agent("codex"), sess("x1"), reason("other"), id("end")))
		if s := find(f, "x1"); s.Status == "gone" || s.Pane != "%3" {
			t.Errorf("after the server's SessionEnd: %s", event.Marshal(&s))
		}
		down := *up
		down.Kind, down.T, down.ID = event.ProcDown, event.At(at(9)), "down"
		f.apply(&down)
		if s := find(f, "x1"); s.Status != "gone" {
			t.Errorf("after its process exited: %s", event.Marshal(&s))
		}
	})
	t.Run("resumed by name, then /new much later: the server's SessionEnd ends the old thread", func(t *testing.T) {
		f := newFolder(t)
		up := sighting(3, "%3", 300, "/p")
		up.Session = "x1"
		f.apply(up, turn(5, "x1", "/p"))
		f.apply(ev(event.SessionEnd, hook, 300, agent("codex"), sess("x1"), reason("other"), id("end")))
		if s := find(f, "x1"); s.Status != "gone" {
			t.Errorf("after SessionEnd five minutes on: %s", event.Marshal(&s))
		}
	})
	t.Run("adopted, not named: SessionEnd ends it", func(t *testing.T) {
		f := newFolder(t)
		f.apply(sighting(1, "%3", 300, "/p"), turn(2, "x1", "/p"))
		f.apply(ev(event.SessionEnd, hook, 4, agent("codex"), sess("x1"), reason("other"), id("end")))
		if s := find(f, "x1"); s.Status != "gone" {
			t.Errorf("after SessionEnd: %s", event.Marshal(&s))
		}
	})
	t.Run("a session with a pid keeps its own", func(t *testing.T) {
		f := newFolder(t)
		f.apply(sighting(1, "%3", 300, "/p"))
		f.apply(ev(event.TurnStart, hook, 5, agent("codex"), sess("x1"), cwd("/p"), pid(777)))
		if s := find(f, "x1"); s.Pane != "" || s.PID != 777 {
			t.Errorf("a session that knows its process adopted a pane: %s", event.Marshal(&s))
		}
	})
}

// TestOneSessionPerProcess: a process that speaks for a new session has
// left the one it ran. Claude Code 2.1.197's `--resume s1 --fork-session`
// first says SessionStart for s1 (which revives it), then runs as s2.
func TestOneSessionPerProcess(t *testing.T) {
	f := newFolder(t)
	f.Folder = New(Config{OneSession: func(string) bool { return true }})
	f.apply(ev(event.TurnStart, hook, 1, pid(100), pane("%1")), ev(event.SessionEnd, hook, 2, pid(100), pane("%1")))
	f.apply(ev(event.SessionStart, hook, 10, pid(200), pane("%3"), text("resume")))
	if s := f.state(); s.Status != "idle" || s.Pane != "%3" {
		t.Fatalf("the fork's SessionStart: s1 %s in %s, want idle in %%3", s.Status, s.Pane)
	}
	out := f.apply(ev(event.TurnStart, hook, 11, sess("s2"), pid(200), pane("%3")))
	if len(out) != 2 || out[0].Session != "s1" || out[0].Status != "gone" || out[0].Reason != "superseded" ||
		out[0].Text != "now session s2" || out[1].Session != "s2" || out[1].Status != "working" {
		t.Fatalf("s2 in s1's process: %+v", out)
	}
	// Another process, another host, or news of s1 after the event: s1 stays.
	for _, c := range []struct {
		name string
		e    *event.Event
	}{
		{"another pid", ev(event.TurnStart, hook, 21, sess("s3"), pid(300))},
		{"another host", ev(event.TurnStart, hook, 21, sess("s3"), pid(200), func(e *event.Event) { e.Host = "b" })},
		{"older than s1's news", ev(event.TurnStart, hook, 19, sess("s3"), pid(200))},
		{"a pane sighting", ev(event.ProcUp, proc, 21, sess(""), pid(200), pane("%3"))},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFolder(t)
			f.Folder = New(Config{OneSession: func(a string) bool { return a == "claude" }})
			f.apply(ev(event.TurnStart, hook, 20, pid(200), pane("%3")))
			f.apply(c.e)
			if s := f.state(); s.Status != "working" {
				t.Errorf("s1 %s, want working", s.Status)
			}
		})
	}
	// An agent whose one process serves several sessions keeps them all.
	g := New(Config{OneSession: func(a string) bool { return a == "claude" }})
	g.Apply(ev(event.TurnStart, hook, 1, pid(300), agent("opencode")))
	g.Apply(ev(event.TurnStart, hook, 2, sess("s2"), pid(300), agent("opencode")))
	for _, st := range g.States() {
		if st.Status != "working" {
			t.Errorf("opencode %s: %s, want working", st.Session, st.Status)
		}
	}
}

// TestContextFloorAfterClear: Claude names the model and "[1m]" only in
// the first SessionStart of a process; the session /clear (or /resume)
// starts in it has the window that process declared — also when its
// transcript's meter comes before its first hook.
func TestContextFloorAfterClear(t *testing.T) {
	for _, meterFirst := range []bool{false, true} {
		f := New(Config{OneSession: func(string) bool { return true }})
		start := ev(event.SessionStart, hook, 1, model("claude-opus-4-8"), pid(100))
		start.Context = &event.Context{Size: 1_000_000}
		f.Apply(start)
		f.Apply(ev(event.SessionEnd, hook, 2, pid(100), reason("clear")))
		m := ev(event.Meter, log, 4, sess("s2"), model("claude-opus-4-8"))
		m.Context = &event.Context{Used: 30_000, Size: 200_000}
		next := ev(event.SessionStart, hook, 3, sess("s2"), pid(100), text("clear"))
		if meterFirst {
			f.Apply(m)
			f.Apply(next)
		} else {
			f.Apply(next)
			f.Apply(m)
		}
		for _, st := range f.States() {
			if st.Session == "s2" && (st.Context == nil || st.Context.Size != 1_000_000) {
				t.Errorf("meter first %v: s2 context %+v, want size 1000000", meterFirst, st.Context)
			}
		}
	}
}

// TestRestoreSubAgentWait: the state names the sub-agent whose prompt the
// session waits on, so ag-fold restarted mid-prompt still knows its answer.
func TestRestoreSubAgentWait(t *testing.T) {
	f := newFolder(t)
	f.apply(ev(event.TurnStart, hook, 1, run("p1")), ev(event.ToolStart, hook, 2, sub("a1"), tool("Bash", "x1")),
		ev(event.Wait, hook, 3, sub("a1"), attn("permission"), tool("Bash", "")))
	saved := f.state()
	if saved.Status != "waiting" || saved.Sub != "a1" || saved.ToolID != "x1" {
		t.Fatalf("waiting on a1's prompt: %s sub %q tool_id %q", saved.Status, saved.Sub, saved.ToolID)
	}
	g := newFolder(t)
	g.Apply(&saved)
	g.apply(ev(event.ToolEnd, hook, 9, sub("a1"), tool("Bash", "x1")))
	if s := g.state(); s.Status != "working" || s.Sub != "" {
		t.Errorf("after restore, the sub-agent's call ended: %s sub %q, want working", s.Status, s.Sub)
	}
}

// TestHookEnds: for an agent whose hooks say when a turn ends (Gemini),
// a transcript's end of the turn is no news once its hooks were heard:
// the chat records an answer before the tool calls it makes, and the
// hooks' BeforeTool comes after the transcript line.
func TestHookEnds(t *testing.T) {
	cfg := Config{HookEnds: func(a string) bool { return a == "gemini" }}
	state := func(f *folder) event.Event {
		for _, st := range f.States() {
			if st.Session == "s1" {
				return st
			}
		}
		t.Fatal("no state for s1")
		return event.Event{}
	}
	f := newFolder(t)
	f.Folder = New(cfg)
	f.apply(ev(event.TurnStart, hook, 1, agent("gemini")),
		ev(event.TurnEnd, log, 2, agent("gemini"), text("I will run the command.")))
	if s := state(f); s.Status != "working" {
		t.Fatalf("a hooked session's transcript end: %s, want working", s.Status)
	}
	f.apply(ev(event.ToolStart, hook, 2.1, agent("gemini"), tool("run_shell_command", "")),
		ev(event.TurnEnd, hook, 5, agent("gemini"), text("done")))
	if s := state(f); s.Status != "done" || s.Text != "done" {
		t.Fatalf("the hook's end: %s %q", s.Status, s.Text)
	}
	// A hook that names no answer: the transcript's last one stands in.
	f.apply(ev(event.TurnStart, hook, 6, agent("gemini")),
		ev(event.TurnEnd, log, 7, agent("gemini"), text("the answer")),
		ev(event.TurnEnd, hook, 7.01, agent("gemini")))
	if s := state(f); s.Status != "done" || s.Text != "the answer" {
		t.Fatalf("the hook's end: %s %q", s.Status, s.Text)
	}
	// Without hooks the transcript is all there is; other agents as before.
	for _, a := range []string{"gemini", "claude"} {
		f := newFolder(t)
		f.Folder = New(cfg)
		first := ev(event.TurnStart, log, 1, agent(a))
		if a == "claude" {
			first = ev(event.TurnStart, hook, 1, agent(a))
		}
		f.apply(first, ev(event.TurnEnd, log, 2, agent(a)))
		if s := state(f); s.Status != "done" {
			t.Errorf("%s: %s, want done", a, s.Status)
		}
	}
}

// TestPromptEvicts: a prompt in a session whose process ran another
// session since (Gemini CLI's /resume goes back with no hook) ends that
// other session; one heard of after the prompt stays.
func TestPromptEvicts(t *testing.T) {
	f := newFolder(t)
	f.Folder = New(Config{OneSession: func(string) bool { return true }})
	f.apply(ev(event.TurnStart, hook, 1, pid(100)), ev(event.SessionEnd, hook, 2, pid(100), reason("clear")),
		ev(event.SessionStart, hook, 2.1, sess("s2"), pid(100), text("clear")),
		ev(event.SessionStart, log, 5, text("resume")))
	out := f.apply(ev(event.TurnStart, hook, 9, pid(100), text("say resumed")))
	if len(out) != 2 || out[0].Session != "s2" || out[0].Status != "gone" || out[0].Reason != "superseded" || out[1].Status != "working" {
		t.Fatalf("a prompt in s1 with s2 in its process: %+v", out)
	}
	g := newFolder(t)
	g.Folder = New(Config{OneSession: func(string) bool { return true }})
	g.apply(ev(event.TurnStart, hook, 1, pid(100)), ev(event.SessionStart, hook, 12, sess("s2"), pid(100)))
	if out := g.apply(ev(event.TurnStart, hook, 9, pid(100))); len(out) != 1 {
		t.Errorf("a session heard of after the prompt stays: %+v", out)
	}
}
