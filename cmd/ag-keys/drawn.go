package main

import (
	"context"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
)

// drawnWithin is how long after a session started waiting its prompt may
// still be missing from the screen: Claude Code 2.1.332 runs its
// PermissionRequest hook, which reports the wait, before it draws the
// dialog, and a press that quick found the agent "at work".
const drawnWithin = 2 * time.Second

// drawnPoll is how often the pane is looked at meanwhile.
const drawnPoll = 100 * time.Millisecond

// awaitDrawn looks at the pane again, while a wait reported moments ago
// shows no prompt there yet (the agent at work, or its composer), until it
// does or the wait is drawnWithin old: what shows then decides.
func (c *cmd) awaitDrawn(ctx context.Context, st *event.Event, pane string, rules *panes.Rules, screen string, res panes.Result) (string, panes.Result, error) {
	if st.Status != event.StatusWaiting || st.Since == nil || (res.Kind != panes.Busy && res.Kind != panes.Idle) {
		return screen, res, nil
	}
	for c.now().Sub(st.Since.Time) < drawnWithin {
		if err := c.sleep(ctx, drawnPoll); err != nil {
			return screen, res, err
		}
		s, err := c.tmux.Capture(ctx, pane, 0)
		if err != nil {
			return screen, res, err
		}
		if r := panes.Classify(rules, s); r.Kind == panes.Wait {
			return s, r, nil
		}
	}
	return screen, res, nil
}
