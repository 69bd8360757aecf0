package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/filters/table"
)

// menuKeys are the keys of the menu's entries: digits, then letters that
// do not move or close a tmux menu (g G h j k l q).
const menuKeys = "1234567890abcdefimnoprstuvwxyz"

// chooseMenu builds focus --choose's tmux command: a display-menu on
// client of every agent session of this host shown in a tmux pane, most urgent first,
// as the rows of ag-fold --snapshot --table; picking one does what focus
// does. It says false when no session has a pane here.
func (c *cmd) chooseMenu(ctx context.Context, client string) ([]string, bool, error) {
	states, err := c.states() // this host's: another's panes are not this tmux's
	if err != nil {
		return nil, false, err
	}
	out, err := c.tmux.Run(ctx, "-u", "list-panes", "-a", "-F", focusPanes)
	if err != nil {
		return nil, false, err
	}
	var shown []event.Event
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		id, tty, _ := strings.Cut(l, "\t")
		st, ok := state.ForPane(states, id)
		// A pane id from an older tmux server must not match this one's.
		if !ok || st.Status == event.StatusGone || (st.TTY != "" && tty != "" && st.TTY != tty) {
			continue
		}
		shown = append(shown, st)
	}
	if len(shown) == 0 {
		return nil, false, nil
	}
	w, h := c.clientSize(ctx, client)
	// The menu's border and padding take 4 columns and 2 lines; the
	// header is a line of its own.
	head, rows := table.Rows(shown, table.Options{Width: w - 4, Now: c.now()})
	rows = rows[:min(len(rows), max(h-3, 1))]
	args := []string{"display-menu", "-T", "#[align=centre] ag: " + plural(len(rows), "session") + " ", "-x", "C", "-y", "C"}
	if client != "" {
		args = append(args, "-c", client)
	}
	// "--": the header entry starts with "-" (shown, not selectable).
	args = append(args, "--", "-"+menuText(head), "", "")
	for i, r := range rows {
		key := ""
		if i < len(menuKeys) {
			key = menuKeys[i : i+1]
		}
		// Pane ids and client names (tty paths) need no quoting here.
		args = append(args, menuText(r.Text), key, strings.Join(focusArgs(r.State.Pane, client), " "))
	}
	return args, true, nil
}

// clientSize is client's width and height (80×24 when tmux does not say).
func (c *cmd) clientSize(ctx context.Context, client string) (int, int) {
	args := []string{"display-message", "-p"}
	if client != "" {
		args = append(args, "-c", client)
	}
	out, err := c.tmux.Run(ctx, append(args, "#{client_width} #{client_height}")...)
	w, h := 80, 24
	if err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 0 {
				w = n
			}
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				h = n
			}
		}
	}
	return w, h
}

// menuText is text for a menu entry's name, which tmux expands as a
// format: # doubled; a leading - would make the entry unselectable.
func menuText(s string) string {
	s = strings.ReplaceAll(s, "#", "##")
	if strings.HasPrefix(s, "-") {
		s = " " + s
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
