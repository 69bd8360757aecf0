package fold

import (
	"testing"

	"github.com/agwatch/ag/filters/event"
)

const (
	hook = event.SrcHook
	log  = event.SrcLog
	pn   = event.SrcPane
	proc = event.SrcProc
)

// tickAt is a step that runs Tick at sec instead of applying an event.
func tickAt(sec float64) *event.Event { return &event.Event{Kind: "tick", T: event.At(at(sec))} }

type want struct {
	status, attention, tool, text string
	pending                       int
}

// TestRules has one case per hard case of the fold rules: each is a run of
// observations and the state claude/s1 must end in.
func TestRules(t *testing.T) {
	perm := func(sec float64, opts ...opt) *event.Event {
		return ev(event.Wait, hook, sec, append([]opt{attn(event.AttnPermission)}, opts...)...)
	}
	start := ev(event.TurnStart, hook, 1, run("p1"), text("fix the bug"))
	tests := []struct {
		name  string
		steps []*event.Event
		want  want
	}{
		{"turn start works", []*event.Event{start}, want{status: "working"}},
		{"hook wait then tool.end resumes", []*event.Event{start,
			ev(event.ToolStart, hook, 2, tool("Bash", "t1"), text("rm -rf build")),
			perm(3, tool("Bash", ""), text("rm -rf build")),
			ev(event.ToolEnd, hook, 9, tool("Bash", "t1")),
		}, want{status: "working"}},
		{"wait carries attention tool and text", []*event.Event{start,
			perm(3, tool("Bash", ""), text("rm -rf build")),
		}, want{status: "waiting", attention: "permission", tool: "Bash", text: "rm -rf build"}},
		{"log tool.start stamped before the hook wait does not end it", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.ToolStart, log, 2.5, tool("Bash", "t1")),
		}, want{status: "waiting", attention: "permission", tool: "Bash"}},
		{"log tool.start never ends a wait (Codex writes the call while its prompt is up)", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.ToolStart, log, 7, tool("Bash", "t1")),
		}, want{status: "waiting", attention: "permission", tool: "Bash"}},
		{"hook tool.start after a wait ends it (the next tool runs)", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.ToolStart, hook, 7, tool("Read", "t2")),
		}, want{status: "working", tool: "Read"}},
		{"a denied permission in the transcript returns to idle, never working", []*event.Event{start,
			perm(3, tool("Bash", "t1")),
			ev(event.ToolEnd, log, 4, tool("Bash", "t1"), reason("denied")),
		}, want{status: "idle"}},
		{"escape on a permission prompt: interrupt returns to idle", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.Interrupt, log, 8, run("p1")),
		}, want{status: "idle"}},
		{"interrupt of a superseded run is ignored", []*event.Event{start,
			ev(event.TurnStart, hook, 5, run("p2")),
			ev(event.Interrupt, log, 6, run("p1")),
		}, want{status: "working"}},
		{"turn.start after a wait ends it", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.TurnStart, hook, 20, run("p2"), text("never mind")),
		}, want{status: "working"}},
		{"stop with background agents stays working", []*event.Event{start,
			ev(event.TurnEnd, hook, 5, run("p1"), pending(2)),
		}, want{status: "working", text: "waiting for 2 background agents", pending: 2}},
		{"new turn supersedes a run waiting for background agents", []*event.Event{start,
			ev(event.TurnEnd, hook, 5, run("p1"), pending(1)),
			ev(event.TurnStart, hook, 30, run("p2")),
			ev(event.TurnEnd, hook, 40, run("p2")),
		}, want{status: "done"}},
		{"turn.end of a superseded run is ignored", []*event.Event{start,
			ev(event.TurnStart, hook, 5, run("p2")),
			ev(event.TurnEnd, log, 6, run("p1")),
		}, want{status: "working"}},
		{"sub-agent finishing counts down pending", []*event.Event{start,
			ev(event.ToolStart, hook, 2, sub("a1"), tool("Explore", "")),
			ev(event.ToolStart, hook, 2.1, sub("a2"), tool("Explore", "")),
			ev(event.TurnEnd, hook, 5, run("p1"), pending(2)),
			ev(event.ToolEnd, hook, 9, sub("a1"), tool("Explore", "")),
		}, want{status: "working", text: "waiting for 1 background agent", pending: 1}},
		{"sub-agent events never end the main wait", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.ToolStart, hook, 4, sub("a1"), tool("Read", "x1")),
			ev(event.ToolEnd, hook, 5, sub("a1"), tool("Read", "x1")),
			ev(event.ToolEnd, hook, 6, sub("a1"), tool("Explore", "")),
			ev(event.TurnEnd, log, 7, sub("a1")),
			ev(event.Wait, hook, 8, sub("a1"), attn("permission"), tool("Write", "")),
		}, want{status: "waiting", attention: "permission", tool: "Bash"}},
		{"sub-agent turn.end never finishes the main turn", []*event.Event{start,
			ev(event.TurnEnd, log, 4, sub("a1")),
		}, want{status: "working"}},
		{"sub-agent activity after done shows the parent working", []*event.Event{start,
			ev(event.TurnEnd, hook, 5),
			ev(event.ToolStart, log, 6, sub("a9"), tool("Bash", "x")),
		}, want{status: "working", text: "waiting for 1 background agent"}},
		{"the last sub-agent ending returns a parent it lifted to done", []*event.Event{start,
			ev(event.TurnEnd, hook, 5),
			ev(event.ToolStart, hook, 6, sub("a9"), tool("Explore", "")),
			ev(event.ToolEnd, hook, 9, sub("a9"), tool("Explore", "")),
		}, want{status: "done"}},
		{"a main turn during sub-agent activity is not undone when the sub-agent ends", []*event.Event{start,
			ev(event.TurnEnd, hook, 5),
			ev(event.ToolStart, hook, 6, sub("a9"), tool("Explore", "")),
			ev(event.TurnStart, hook, 7, run("p2")),
			ev(event.ToolEnd, hook, 9, sub("a9"), tool("Explore", "")),
		}, want{status: "working"}},
		{"AskUserQuestion: the pane relabels the hook's permission as question", []*event.Event{start,
			perm(3),
			ev(event.Wait, pn, 4, attn(event.AttnQuestion), text("Which database?")),
		}, want{status: "waiting", attention: "question", text: "Which database?"}},
		{"plan approval: the pane relabels the hook's permission as plan", []*event.Event{start,
			perm(3),
			ev(event.Wait, pn, 4, attn(event.AttnPlan)),
		}, want{status: "waiting", attention: "plan"}},
		{"Notification after PermissionRequest keeps tool and question", []*event.Event{start,
			ev(event.Wait, hook, 3, attn(event.AttnQuestion), tool("AskUserQuestion", ""), text("Which db?")),
			perm(3.1),
		}, want{status: "waiting", attention: "question", tool: "AskUserQuestion", text: "Which db?"}},
		{"pane idle composer lowers a hook wait older than the grace", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.WaitEnd, pn, 34, reason("idle")),
		}, want{status: "idle"}},
		{"pane idle composer within the grace leaves the hook wait", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.WaitEnd, pn, 10, reason("idle")),
		}, want{status: "waiting", attention: "permission", tool: "Bash"}},
		{"pane idle seen within the grace lowers at a later tick", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.WaitEnd, pn, 10, reason("idle")),
			tickAt(20),
			tickAt(33.5),
		}, want{status: "idle"}},
		{"the prompt back on screen cancels a pending pane idle", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.WaitEnd, pn, 10, reason("idle")),
			ev(event.Wait, pn, 12, attn(event.AttnPermission)),
			tickAt(60),
		}, want{status: "waiting", attention: "permission", tool: "Bash"}},
		{"pane wait raises working", []*event.Event{start,
			ev(event.Wait, pn, 5, attn(event.AttnPermission), text("Do you want to proceed?")),
		}, want{status: "waiting", attention: "permission", text: "Do you want to proceed?"}},
		{"pane wait.end ends a wait the pane raised at once", []*event.Event{start,
			ev(event.Wait, pn, 5, attn(event.AttnPermission)),
			ev(event.WaitEnd, pn, 6, reason("idle")),
		}, want{status: "idle"}},
		{"pane wait older than the hook's status does not raise", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.ToolEnd, hook, 6, tool("Bash", "t1")),
			ev(event.Wait, pn, 5, attn(event.AttnPermission)),
		}, want{status: "working"}},
		{"pane never raises failed", []*event.Event{start,
			ev(event.TurnFail, hook, 5, reason("rate_limit")),
			ev(event.Wait, pn, 6, attn(event.AttnPermission)),
		}, want{status: "failed", text: "rate_limit"}},
		{"codex: log tool.end newer than the hook wait ends it", []*event.Event{start,
			perm(3, tool("shell", "")),
			ev(event.ToolEnd, log, 5, tool("shell", "c1")),
		}, want{status: "working"}},
		{"codex: log tool.end within 250ms before the hook wait ends it", []*event.Event{start,
			perm(3, tool("shell", "")),
			ev(event.ToolEnd, log, 2.8, tool("shell", "c1")),
		}, want{status: "working"}},
		{"codex: log tool.end older than the hook wait's slack leaves it", []*event.Event{start,
			perm(3, tool("shell", "")),
			ev(event.ToolEnd, log, 2.7, tool("shell", "c1")),
		}, want{status: "waiting", attention: "permission", tool: "shell"}},
		{"codex without hooks: log tool.end within 2s of the wait ends it", []*event.Event{
			ev(event.TurnStart, log, 1),
			ev(event.Wait, pn, 5, attn(event.AttnPermission)),
			ev(event.ToolEnd, log, 3.5, tool("shell", "c1")),
		}, want{status: "working"}},
		{"codex without hooks: log tool.end older than 2s before the wait leaves it", []*event.Event{
			ev(event.TurnStart, log, 1),
			ev(event.Wait, pn, 5, attn(event.AttnPermission)),
			ev(event.ToolEnd, log, 2.5, tool("shell", "c1")),
		}, want{status: "waiting", attention: "permission"}},
		{"codex: session.start with the first prompt keeps working", []*event.Event{
			ev(event.TurnStart, hook, 1, run("turn1")),
			ev(event.SessionStart, hook, 1.2),
		}, want{status: "working"}},
		{"codex: turn.end is done", []*event.Event{start, ev(event.TurnEnd, log, 9)}, want{status: "done"}},
		{"hook outranks the transcript at the same moment", []*event.Event{start,
			perm(3, tool("Bash", "")),
			ev(event.ToolStart, log, 3, tool("Bash", "t1")),
		}, want{status: "waiting", attention: "permission", tool: "Bash"}},
		{"a log line older than the hook's status does not undo it", []*event.Event{start,
			ev(event.TurnEnd, hook, 10),
			ev(event.ToolStart, log, 9, tool("Edit", "t3")),
		}, want{status: "done"}},
		{"hook Stop with pending outranks the transcript's end of the same moment", []*event.Event{start,
			ev(event.TurnEnd, log, 10.4),
			ev(event.TurnEnd, hook, 10, pending(1)),
		}, want{status: "working", text: "waiting for 1 background agent", pending: 1}},
		{"the transcript's end just after a Stop with background agents keeps them pending", []*event.Event{start,
			ev(event.TurnEnd, hook, 10, run("p1"), pending(1)),
			ev(event.TurnEnd, log, 9.9, run("p1")),
			ev(event.TurnEnd, log, 10.05, run("p1")),
		}, want{status: "working", text: "waiting for 1 background agent", pending: 1}},
		{"the resumed run's transcript end finishes a background wait", []*event.Event{start,
			ev(event.TurnEnd, hook, 10, run("p1"), pending(1)),
			ev(event.TurnEnd, log, 10.05, run("p1")),
			ev(event.TurnEnd, log, 20, run("p2")),
		}, want{status: "done"}},
		{"a late transcript end of the previous call does not end a wait the hook named no call for", []*event.Event{start,
			ev(event.ToolStart, hook, 3, tool("Write", "t2")),
			ev(event.ToolEnd, hook, 3.1, tool("Write", "t2")),
			ev(event.ToolStart, hook, 3.2, tool("ExitPlanMode", "t3")),
			ev(event.Wait, hook, 3.3, attn("plan"), tool("ExitPlanMode", "")),
			ev(event.ToolEnd, log, 3.105, tool("Write", "t2")),
		}, want{status: "waiting", attention: "plan", tool: "ExitPlanMode"}},
		{"the answered prompt's last frame on the pane does not raise a new wait", []*event.Event{start,
			ev(event.Wait, hook, 3, attn("plan"), tool("ExitPlanMode", "")),
			ev(event.ToolEnd, hook, 4, tool("ExitPlanMode", "t1")),
			ev(event.Wait, pn, 4.001, attn("plan"), tool("ExitPlanMode", "")),
		}, want{status: "working"}},
		{"the same tool's prompt on the pane later is a new wait", []*event.Event{start,
			ev(event.Wait, hook, 3, attn("plan"), tool("ExitPlanMode", "")),
			ev(event.ToolEnd, hook, 4, tool("ExitPlanMode", "t1")),
			ev(event.Wait, pn, 6, attn("plan"), tool("ExitPlanMode", "")),
		}, want{status: "waiting", attention: "plan", tool: "ExitPlanMode"}},
		{"an old hook of another kind does not undo the transcript", []*event.Event{start,
			ev(event.TurnEnd, log, 10.4),
			ev(event.ToolStart, hook, 10, tool("Bash", "t9")),
		}, want{status: "done"}},
		{"turn.fail is failed with the reason", []*event.Event{start,
			ev(event.TurnFail, hook, 4, reason("overloaded")),
		}, want{status: "failed", text: "overloaded"}},
		{"session.end is gone", []*event.Event{start,
			ev(event.SessionEnd, hook, 4, reason("logout")),
		}, want{status: "gone", text: "logout"}},
		{"proc.down of the session's pid is gone", []*event.Event{
			ev(event.SessionStart, hook, 1, pid(4242)),
			perm(2),
			{V: 1, T: event.At(at(5)), Kind: event.ProcDown, Src: proc, PID: 4242, ID: "down"},
		}, want{status: "gone", text: "process exited"}},
		{"proc.down of another pid changes nothing", []*event.Event{
			ev(event.SessionStart, hook, 1, pid(4242)),
			{V: 1, T: event.At(at(5)), Kind: event.ProcDown, Src: proc, PID: 4243, ID: "down"},
		}, want{status: "idle"}},
		{"duplicate ids fold once", []*event.Event{start,
			ev(event.TurnEnd, hook, 5, id("x")),
			ev(event.TurnStart, hook, 6, run("p2")),
			ev(event.TurnEnd, hook, 5, id("x")),
		}, want{status: "working"}},
		{"a parallel tool call ending does not end the wait for another", []*event.Event{start,
			ev(event.Wait, hook, 3, attn("permission"), tool("Bash", "t2")),
			ev(event.ToolEnd, hook, 4, tool("Read", "t1")),
			ev(event.ToolStart, log, 5, tool("Read", "t3")),
		}, want{status: "waiting", attention: "permission", tool: "Bash"}},
		{"the waiting call's own tool.end ends the wait", []*event.Event{start,
			ev(event.Wait, hook, 3, attn("permission"), tool("Bash", "t2")),
			ev(event.ToolEnd, hook, 4, tool("Bash", "t2")),
		}, want{status: "working"}},
		{"the end of a run not seen before (resumed after background agents) finishes the turn", []*event.Event{start,
			ev(event.TurnEnd, hook, 5, run("p1"), pending(1)),
			ev(event.ToolEnd, hook, 20, sub("a1"), tool("Explore", "")),
			ev(event.TurnEnd, hook, 30, run("p9")),
			ev(event.TurnEnd, log, 31, run("p1")),
		}, want{status: "done"}},
		{"a new turn clears pending background agents", []*event.Event{start,
			ev(event.TurnEnd, hook, 5, pending(3)),
			ev(event.TurnStart, hook, 6, run("p2")),
		}, want{status: "working"}},
		{"wait.end from a hook resumes work", []*event.Event{start,
			perm(3),
			ev(event.WaitEnd, hook, 4),
		}, want{status: "working"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFolder(t)
			for _, e := range tc.steps {
				if e.Kind == "tick" {
					f.tick(float64(e.T.Sub(t0).Seconds()))
					continue
				}
				f.apply(e)
			}
			s := f.state()
			got := want{s.Status, s.Attention, s.Tool, s.Text, s.Pending}
			if got != tc.want {
				t.Errorf("state = %+v\nwant    %+v\n%s", got, tc.want, event.Marshal(&s))
			}
		})
	}
}
