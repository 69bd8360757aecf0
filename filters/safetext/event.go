package safetext

import (
	"slices"

	"github.com/agwatch/ag/filters/event"
)

// Fields is a copy of e for a view to print: f applied to every text
// field (Line, or Tmux where tmux reads the result), the options and the
// limits' windows too; the members this version does not know (Extra) are left out.
func Fields(e *event.Event, f func(string) string) event.Event {
	c := *e
	c.Extra = nil
	for _, p := range [...]*string{&c.Kind, &c.Agent, &c.Session, &c.Src, &c.ID, &c.Run, &c.TTY, &c.Pane,
		&c.Host, &c.Cwd, &c.Branch, &c.Tool, &c.ToolID, &c.Attention, &c.Text, &c.Reason, &c.Argv0,
		&c.Transcript, &c.Sub, &c.Prompt, &c.Model, &c.Status, &c.Token, &c.Stale, &c.Action,
		&c.Backend, &c.Ref, &c.Sig, &c.Where, &c.Job, &c.Mode, &c.Why} {
		*p = f(*p)
	}
	if len(c.Options) > 0 {
		c.Options = slices.Clone(c.Options)
		for i := range c.Options {
			c.Options[i] = f(c.Options[i])
		}
	}
	if len(c.Limits) > 0 {
		c.Limits = slices.Clone(c.Limits)
		for i := range c.Limits {
			c.Limits[i].Window = f(c.Limits[i].Window)
		}
	}
	return c
}

// FieldChars bounds one field of an event a view prints: a template may
// show any of them, and a line of a prompt is no place for a transcript.
const FieldChars = 256
