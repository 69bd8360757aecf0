package main

import (
	"context"
	"errors"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers"
)

// focusOptions are the focus command's options; options embeds them.
type focusOptions struct {
	NextWaiting bool   `long:"next-waiting" description:"focus: the next pane that waits for you"`
	Choose      bool   `long:"choose" description:"focus: pick the pane from a tmux menu" man:"a menu of every agent session, most urgent first; picking one focuses its pane"`
	Client      string `short:"c" long:"client" value-name:"NAME" description:"tmux client: focus switches it; told when refused" man:"focus switches this client to the pane; an action or focus that is refused or fails is also shown on it (display-message), for the person who pressed the key; the tmux plugin passes #{client_name}"`
}

// focusPanes is list-panes' format for focus: pane, its tty (a pane id
// from an old tmux server must not match a new one's), its session.
const focusPanes = "#{pane_id}\t#{pane_tty}"

// focus brings a pane forward: with --next-waiting the next pane whose
// session waits (from the state file), else --pane. It selects the pane's
// window and the pane, and with --client switches that client to it. With
// --choose it opens a menu of the sessions whose entries do that. It
// types nothing. Exit 1 when no pane waits (or none has a session).
func (c *cmd) focus(ctx context.Context, o focusOptions) int {
	a := event.New(event.Action, c.now(), "", "")
	a.Action, a.Pane = "focus", c.opts.Pane
	r := result{ev: c.keysEvent(&a)}
	finish := func(status, reason string, code int) int {
		r.finish(status, reason, code)
		if err := c.emit(&r.ev); err != nil {
			return c.writeErr(err)
		}
		c.say(ctx, &r.ev, cli.Place{}, "")
		return r.code
	}
	target := c.opts.Pane
	var args []string // the tmux command; nil: focus target
	var err error
	ok, none := true, ""
	switch {
	case o.Choose && o.NextWaiting:
		return c.usage("focus takes --choose or --next-waiting, not both")
	case o.Choose:
		args, ok, err = c.chooseMenu(ctx, o.Client)
		none = "no agent session in a tmux pane"
	case o.NextWaiting:
		var st event.Event
		st, ok, err = c.nextWaiting(ctx, c.opts.Pane)
		none = "no session is waiting"
		if ok && err == nil {
			target = st.Pane
			r.ev.Agent, r.ev.Session, r.ev.Pane = st.Agent, st.Session, st.Pane
		}
	case target == "":
		return c.usage("focus needs --pane, --next-waiting or --choose")
	}
	switch {
	case errors.Is(err, state.ErrNoFile):
		return finish(statusRefused, "no state file "+c.opts.StateFile+" (is ag-fold running?)", cli.ExitNoMatch)
	case err != nil:
		return finish(statusError, err.Error(), cli.ExitError)
	case !ok:
		return finish(statusRefused, none, cli.ExitNoMatch)
	}
	if args == nil {
		args = focusArgs(target, o.Client)
	}
	if !c.opts.DryRun {
		if _, err := c.tmux.Run(ctx, args...); err != nil {
			return finish(statusError, err.Error(), cli.ExitError)
		}
	}
	status := statusSent
	if c.opts.DryRun {
		status = statusPlanned
	}
	return finish(status, "", cli.ExitOK)
}

// focusArgs is the tmux command that brings pane forward (on client, when
// named: its session too).
func focusArgs(pane, client string) []string {
	args := []string{"select-window", "-t", pane, ";", "select-pane", "-t", pane}
	if client != "" {
		args = append([]string{"switch-client", "-c", client, "-t", pane, ";"}, args...)
	}
	return args
}

// nextWaiting picks the waiting session whose pane comes first after
// current in tmux's pane order (session, window, pane), wrapping around.
func (c *cmd) nextWaiting(ctx context.Context, current string) (event.Event, bool, error) {
	states, err := c.states()
	if err != nil {
		return event.Event{}, false, err
	}
	// -u: in a non-UTF-8 locale tmux prints the tab as "_".
	out, err := c.tmux.Run(ctx, "-u", "list-panes", "-a", "-F", focusPanes)
	if err != nil {
		return event.Event{}, false, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	var order []event.Event // waiting sessions, in pane order
	at := -1                // index in order from which to look
	for _, l := range lines {
		id, tty, _ := strings.Cut(l, "\t")
		if id == current {
			at = len(order)
		}
		st, ok := state.ForPaneOf(states, id, providers.ManySessionsPerProcess)
		if !ok || st.Status != event.StatusWaiting || (st.TTY != "" && tty != "" && st.TTY != tty) {
			continue
		}
		if id == current {
			at = len(order) + 1 // the current pane is the last to come round again
		}
		order = append(order, st)
	}
	if len(order) == 0 {
		return event.Event{}, false, nil
	}
	if at < 0 || at >= len(order) {
		at = 0
	}
	return order[at], true, nil
}
