package fold

import (
	"testing"

	"github.com/agwatch/ag/filters/event"
)

// TestIdleNotice: a hook's "back at the prompt" (Qwen's idle_prompt, an
// interrupt with reason idle) ends a turn that no Stop ended, and leaves a
// finished turn, or one still waiting for background agents, as it is.
func TestIdleNotice(t *testing.T) {
	idle := func(sec float64) *event.Event { return ev(event.Interrupt, hook, sec, reason(event.ReasonIdle)) }
	for _, c := range []struct {
		name string
		evs  []*event.Event
		want string
	}{
		{"after Stop", []*event.Event{ev(event.TurnStart, hook, 1, run("p1")), ev(event.TurnEnd, hook, 2, run("p1")), idle(2.1)}, event.StatusDone},
		{"a denied call", []*event.Event{ev(event.TurnStart, hook, 1, run("p1")), ev(event.Wait, hook, 2, run("p1"), attn(event.AttnPermission)), idle(3)}, event.StatusIdle},
		{"Escape while working", []*event.Event{ev(event.TurnStart, hook, 1, run("p1")), idle(3)}, event.StatusIdle},
		{"background agents", []*event.Event{ev(event.TurnStart, hook, 1, run("p1")), ev(event.TurnEnd, hook, 2, run("p1"), pending(1)), idle(2.1)}, event.StatusWorking},
		{"failed", []*event.Event{ev(event.TurnStart, hook, 1, run("p1")), ev(event.TurnFail, hook, 2, run("p1"), reason("api_error")), idle(2.1)}, event.StatusFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFolder(t)
			f.apply(c.evs...)
			if s := f.state(); s.Status != c.want {
				t.Errorf("%s, want %s", s.Status, c.want)
			}
		})
	}
}

// TestWaitForRunningCall: a permission notification naming no tool while
// a call a hook started runs (Droid's PreToolUse, then "needs permission
// to execute 1 tool(s)") is a wait for that call: its tool and command.
func TestWaitForRunningCall(t *testing.T) {
	f := newFolder(t)
	f.apply(ev(event.TurnStart, hook, 1, run("p1")),
		ev(event.ToolStart, hook, 2, run("p1"), tool("Execute", "call_1"), text("echo hi")),
		ev(event.Wait, hook, 2.1, attn(event.AttnPermission), text("Factory CLI needs permission to execute 1 tool(s)")))
	if s := f.state(); s.Status != event.StatusWaiting || s.Tool != "Execute" || s.ToolID != "call_1" || s.Text != "echo hi" {
		t.Errorf("state %s %s %s %q", s.Status, s.Tool, s.ToolID, s.Text)
	}
}
