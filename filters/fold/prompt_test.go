package fold

import (
	"testing"

	"github.com/agwatch/ag/filters/event"
)

// TestPromptNamedLate: a hook that starts a turn without saying its prompt
// (Cline's TaskStart), and the transcript's start of that turn read after
// the next hook events, or after the turn's end (Cline writes it once the
// model answers): the prompt is named, nothing else moves. A transcript's
// start of another moment names nothing.
func TestPromptNamedLate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		steps  []*event.Event
		status string
		prompt string
	}{
		{"named after the tool started", []*event.Event{
			ev(event.TurnStart, hook, 10, text("old prompt")), ev(event.TurnEnd, hook, 11),
			ev(event.TurnStart, hook, 20), ev(event.ToolStart, hook, 20.1, tool("run_commands", "c1")),
			ev(event.TurnStart, log, 20.0004, run("m2"), text("RUN: ls")),
		}, "working", "RUN: ls"},
		{"named while waiting", []*event.Event{
			ev(event.TurnStart, hook, 20), ev(event.Wait, log, 20.2, attn("permission"), tool("run_commands", "c1")),
			ev(event.TurnStart, log, 19.9995, run("m2"), text("RUN: ls")),
		}, "waiting", "RUN: ls"},
		{"another moment's start", []*event.Event{
			ev(event.TurnStart, hook, 10, text("old prompt")), ev(event.TurnStart, hook, 20), ev(event.ToolStart, hook, 20.1),
			ev(event.TurnStart, log, 12, text("older")),
		}, "working", "old prompt"},
		{"a turn already over", []*event.Event{
			ev(event.TurnStart, hook, 20), ev(event.TurnEnd, hook, 20.3),
			ev(event.TurnStart, log, 20.0004, text("RUN: ls")),
		}, "done", "RUN: ls"},
		{"an older turn's, read after the next started", []*event.Event{
			ev(event.TurnStart, hook, 20, text("new")), ev(event.TurnStart, log, 12, text("old")),
		}, "working", "new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFolder(t)
			f.apply(tc.steps...)
			s := f.state()
			if s.Status != tc.status || s.Prompt != tc.prompt {
				t.Errorf("status %s prompt %q, want %s %q", s.Status, s.Prompt, tc.status, tc.prompt)
			}
		})
	}
}
