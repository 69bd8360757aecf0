package main

import (
	"context"
	"errors"
	"strings"

	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/tmux"
)

// tmuxBackend shows a line on the status bar of every client attached to
// the pane's session (all clients when the note has no pane); with
// --tmux-popup a wait that can be answered opens a popup instead (see
// popups); a finished turn stays a line. A message cannot be taken back; a popup can.
type tmuxBackend struct {
	tmux  *tmux.Client
	popup *popups // nil without --tmux-popup
}

func (b *tmuxBackend) Name() string { return "tmux" }

func (b *tmuxBackend) Deliver(ctx context.Context, n *notify.Note) (string, error) {
	clients, err := paneClients(ctx, b.tmux, localPane(n), "#{client_name}")
	if err != nil {
		return "", err
	}
	if len(clients) == 0 {
		return "", errors.New("no tmux client attached to show it on")
	}
	var shown []string
	// Only a wait opens a popup: a popup takes every key the client types,
	// and a finished turn's would swallow what the user types next.
	if b.popup != nil && n.Urgent && answerable(n) {
		b.popup.close(n) // one per session
		free, busy := b.popup.busy(clients)
		if len(free) > 0 {
			if err := b.popup.open(n, free); err != nil {
				return "", err
			}
			shown = append(shown, "popup:"+strings.Join(free, ","))
		}
		clients = busy // a client showing another popup gets the line
	}
	// display-message expands formats: a literal # must be doubled, or the
	// agent's text could pull tmux state (or run #() commands) into it.
	msg := tmux.Arg(strings.ReplaceAll(n.Text(), "#", "##"))
	var firstErr error
	for _, cl := range clients {
		if _, err := b.tmux.Run(ctx, "display-message", "-c", cl, "-d", "8000", "--", msg); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		shown = append(shown, cl)
	}
	if len(shown) == 0 {
		return "", firstErr
	}
	return strings.Join(shown, ","), nil
}

func (b *tmuxBackend) Retract(_ context.Context, n *notify.Note) (string, error) {
	if b.popup != nil && b.popup.close(n) {
		return "popup", nil
	}
	return "", nil
}

func (b *tmuxBackend) Close() {
	if b.popup != nil {
		b.popup.shutdown()
	}
}

// paneClients lists, in format, the clients attached to the session that
// holds pane (every client when pane is empty), leaving out control-mode
// clients (ag-detect --watch's): they have no screen to show a message on.
// localPane is the note's pane on this tmux server: "" for another host's
// session (its %3 is a pane over there), which is told on every client.
func localPane(n *notify.Note) string {
	if n.Remote {
		return ""
	}
	return n.Pane
}

func paneClients(ctx context.Context, c *tmux.Client, pane, format string) ([]string, error) {
	args := []string{"list-clients", "-F", "#{?client_control_mode,,>" + format + "}"}
	if pane != "" {
		args = append(args, "-t", pane)
	}
	out, err := c.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(l, ">"); ok {
			lines = append(lines, s)
		}
	}
	return lines, nil
}
