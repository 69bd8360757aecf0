package main

import (
	"context"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
)

// say tells a person why a keys event was refused or failed: one
// "ag-keys: …" line on stderr (the event on stdout is for pipes), and,
// when the request came from a key in tmux — the plugin's bindings pass
// --client, a popup's press names the tmux backend — a message on those
// clients, since whoever pressed it sees no stderr. at is the input place
// of a request read from stdin, else "".
func (c *cmd) say(ctx context.Context, ev *event.Event, at cli.Place, backend string) {
	var verb string
	switch ev.Status {
	case statusRefused:
		verb = "refused"
	case statusError:
		verb = "failed"
	default:
		return
	}
	what := ev.Action
	if ev.Pane != "" {
		what += " " + ev.Pane
	}
	if at.Name != "" {
		what = at.String() + ": " + what
	}
	c.prog.Errorf("%s: %s: %s", what, verb, ev.Reason)
	var clients []string
	switch {
	case c.opts.Client != "":
		clients = []string{c.opts.Client}
	case backend == "tmux":
		clients = c.paneClients(ctx, ev.Pane)
	}
	// display-message expands formats: a # of the reason must be doubled.
	msg := strings.ReplaceAll("ag: "+ev.Action+" "+verb+": "+ev.Reason, "#", "##")
	for _, cl := range clients {
		c.tmux.Run(ctx, "display-message", "-c", cl, "-d", "8000", "--", msg)
	}
}

// paneClients are the tmux clients attached to pane's session, else every
// client (the pane is gone, or unknown). Not control clients (ag-detect's
// own): they show no message.
func (c *cmd) paneClients(ctx context.Context, pane string) []string {
	args := []string{"list-clients", "-F", "#{?client_control_mode,,#{client_name}}"}
	if pane != "" {
		if out, err := c.tmux.Run(ctx, append(args, "-t", pane)...); err == nil && strings.TrimSpace(string(out)) != "" {
			return strings.Fields(string(out))
		}
	}
	out, err := c.tmux.Run(ctx, args...)
	if err != nil {
		return nil
	}
	return strings.Fields(string(out))
}
