package fold

import (
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// TestEstimate has one case per rule of the approval estimate (Cursor: no
// hook reports a prompt; a preToolUse with no postToolUse for 10 s is a
// probable approval wait). The agent of these cases is estimated at 10 s.
func TestEstimate(t *testing.T) {
	start := ev(event.TurnStart, hook, 1, run("g1"), text("clean up"))
	pre := func(sec float64, id, cmd string) *event.Event {
		return ev(event.ToolStart, hook, sec, tool("Shell", id), text(cmd))
	}
	post := func(sec float64, id string) *event.Event { return ev(event.ToolEnd, hook, sec, tool("Shell", id)) }
	type want struct{ status, attention, tool, toolID, text, reason string }
	est := func(id, cmd string) want {
		return want{"waiting", "permission", "Shell", id, cmd, event.ReasonEstimated}
	}
	for _, tc := range []struct {
		name  string
		steps []*event.Event
		want  want
	}{
		{"answered before 10 s: never a wait", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), tickAt(6), post(8, "t1"), tickAt(14), tickAt(30),
		}, want{status: "working"}},
		{"no end after 10 s: a probable approval wait", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), tickAt(11.9), tickAt(12.1),
		}, est("t1", "rm -rf build")},
		{"not yet at 9.9 s", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), tickAt(11.9),
		}, want{status: "working", tool: "Shell", toolID: "t1", text: "rm -rf build"}},
		{"answered after 10 s: its end ends the wait", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), tickAt(13), post(25, "t1"),
		}, want{status: "working"}},
		{"its end, read after the tick that raised it, still ends it", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), tickAt(13), post(12.5, "t1"),
		}, want{status: "working"}},
		{"parallel calls: the other one ending leaves the wait", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), pre(2.1, "t2", "ls"), post(3, "t2"), tickAt(13), post(14, "t2"),
		}, est("t1", "rm -rf build")},
		{"parallel calls: the oldest open one is the wait", []*event.Event{start,
			pre(2, "t1", "ls"), pre(2.1, "t2", "rm -rf build"), post(3, "t1"), tickAt(13),
		}, est("t2", "rm -rf build")},
		{"parallel calls: after the first wait's end, the other one is estimated in turn", []*event.Event{start,
			pre(2, "t1", "rm a"), pre(2.1, "t2", "rm b"), tickAt(13), post(15, "t1"), tickAt(17),
		}, est("t2", "rm b")},
		{"the run's stop ends the wait and every call", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), tickAt(13), ev(event.TurnEnd, hook, 20, run("g1")), tickAt(40),
		}, want{status: "done"}},
		{"an interrupt ends it (C-c)", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), tickAt(13), ev(event.Interrupt, hook, 20, run("g1")), tickAt(40),
		}, want{status: "idle"}},
		{"an interrupt before 10 s: no wait after", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), ev(event.Interrupt, hook, 5, run("g1")), tickAt(40),
		}, want{status: "idle"}},
		{"the next prompt forgets the calls before it", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), ev(event.TurnStart, hook, 5, run("g2")), tickAt(40),
		}, want{status: "working"}},
		{"the pane shows the prompt: confirmed, no longer estimated", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), tickAt(13),
			ev(event.Wait, pn, 14, attn(event.AttnPermission), text("rm -rf build")),
		}, want{"waiting", "permission", "Shell", "t1", "rm -rf build", ""}},
		// (The prompt names no tool: it is the call in flight's.)
		{"the pane showed the prompt before 10 s: a wait at once, not estimated", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), ev(event.Wait, pn, 3, attn(event.AttnPermission), text("rm -rf build")), tickAt(13),
		}, want{"waiting", "permission", "Shell", "t1", "rm -rf build", ""}},
		{"the pane shows it at work: dismissed, and never estimated again", []*event.Event{start,
			pre(2, "t1", "make test"), tickAt(13),
			ev(event.WaitEnd, pn, 14, reason(event.ReasonBusy)), tickAt(20), tickAt(40),
		}, want{status: "working", tool: "Shell", toolID: "t1", text: "make test"}},
		{"the idle composer dismisses it too", []*event.Event{start,
			pre(2, "t1", "make test"), tickAt(13), ev(event.WaitEnd, pn, 14, reason(event.ReasonIdle)), tickAt(40),
		}, want{status: "working", tool: "Shell", toolID: "t1", text: "make test"}},
		{"a pane sighting older than the call says nothing about it", []*event.Event{start,
			pre(2, "t1", "make test"), tickAt(13), ev(event.WaitEnd, pn, 1.5, reason(event.ReasonBusy)),
		}, est("t1", "make test")},
		{"the command seen running (ag-fold's check) dismisses it", []*event.Event{start,
			pre(2, "t1", "make test"), tickAt(13),
			ev(event.WaitEnd, proc, 14, reason(event.ReasonBusy), tool("Shell", ""), text("make test")), tickAt(40),
		}, want{status: "working", tool: "Shell", toolID: "t1", text: "make test"}},
		{"a sub-agent's call is never estimated", []*event.Event{start,
			ev(event.ToolStart, hook, 2, sub("a1"), tool("Shell", "s1"), text("ls")), tickAt(40),
		}, want{status: "working"}},
		{"a transcript's tool.start is not a hook's: not estimated", []*event.Event{start,
			ev(event.ToolStart, log, 2, tool("Shell", "t1"), text("ls")), tickAt(40),
		}, want{status: "working", tool: "Shell", toolID: "t1", text: "ls"}},
		{"the session's end ends it", []*event.Event{start,
			pre(2, "t1", "rm -rf build"), tickAt(13), ev(event.SessionEnd, hook, 20),
		}, want{status: "gone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Folded whole, and restarted from its saved states (the state
			// file) after each step: the same end.
			for k := -1; k < len(tc.steps); k++ {
				f := estimating(t)
				for i, e := range tc.steps {
					if i == k {
						g := estimating(t)
						g.restore(f.Folder)
						f = g
					}
					if e.Kind == "tick" {
						f.tick(e.T.Sub(t0).Seconds())
						continue
					}
					f.apply(e)
				}
				s := f.state()
				got := want{s.Status, s.Attention, s.Tool, s.ToolID, s.Text, s.Reason}
				if got != tc.want {
					t.Errorf("restarted before step %d (-1: never): state %+v\nwant  %+v", k, got, tc.want)
				}
			}
		})
	}
}

// estimating is a folder whose agent (the cases' claude) is estimated at
// 10 s.
func estimating(t *testing.T) *folder {
	return &folder{t: t, Folder: New(Config{Estimate: func(agent string) time.Duration {
		if agent == "claude" {
			return 10 * time.Second
		}
		return 0
	}}), last: map[string]event.Event{}}
}

// TestEstimateEdges: the estimate's marks on the state and what it does
// not do.
func TestEstimateEdges(t *testing.T) {
	cfg := Config{Estimate: func(string) time.Duration { return 10 * time.Second }}
	t.Run("confirmed by the pane: a new edge, so the notification is offered again", func(t *testing.T) {
		f := &folder{t: t, Folder: New(cfg), last: map[string]event.Event{}}
		f.apply(ev(event.TurnStart, hook, 1), ev(event.ToolStart, hook, 2, tool("Shell", "t1"), text("rm x")))
		out := f.tick(13)
		if len(out) != 1 || out[0].Reason != event.ReasonEstimated {
			t.Fatalf("tick: %v", out)
		}
		est := out[0]
		conf := f.apply(ev(event.Wait, pn, 14, attn(event.AttnPermission)))
		if len(conf) != 1 || conf[0].Reason != "" || conf[0].Token == est.Token || !conf[0].Since.Equal(est.Since.Time) {
			t.Errorf("confirmed: %+v (estimated: %+v)", conf, est)
		}
	})
	t.Run("an agent with no estimate keeps a call open for ever", func(t *testing.T) {
		f := newFolder(t)
		f.apply(ev(event.TurnStart, hook, 1), ev(event.ToolStart, hook, 2, tool("Bash", "t1")))
		if out := f.tick(3600); len(out) != 0 {
			t.Errorf("tick: %v", out)
		}
	})
	t.Run("a restored estimated wait ends with its call", func(t *testing.T) {
		f := &folder{t: t, Folder: New(cfg), last: map[string]event.Event{}}
		f.apply(ev(event.TurnStart, hook, 1), ev(event.ToolStart, hook, 2, tool("Shell", "t1")))
		st := f.tick(13)[0]
		g := &folder{t: t, Folder: New(cfg), last: map[string]event.Event{}}
		g.Apply(&st)
		if s := g.state(); s.Reason != event.ReasonEstimated {
			t.Fatalf("restored %+v", s)
		}
		g.apply(ev(event.ToolEnd, hook, 20, tool("Shell", "t1")))
		if s := g.state(); s.Status != event.StatusWorking || s.Reason != "" {
			t.Errorf("after its end %+v", s)
		}
	})
}
