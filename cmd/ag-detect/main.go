// ag-detect says which agent runs in which tmux pane, and what its screen
// shows: the process side and the pane side of ag's observations.
//
// Synopsis:
//
//	ag-detect [--all] [--panes] [-L NAME | -S PATH]
//	ag-detect --watch [--interval D] [--all] [--panes] [-L NAME | -S PATH]...
//	ag-detect --pane [PANE] [--format TEMPLATE]
//
// Description:
//
// With --all (the default) it lists every pane of the tmux server ($TMUX,
// or -L/-S) that runs an agent, as proc.up events: pane, pid, tty, agent,
// cwd, argv0, and the session a command line names (codex resume <id>).
// The agent is found from the pane's foreground process by the
// providers' rules (executable, argv[0], an interpreter's script), through
// shells and wrappers (two levels of children, a handful of processes), and
// last from AG_AGENT=<agent> in a wrapper's exec-time environment.
//
// With --panes it captures each agent pane and classifies the screen by the
// provider's pane rules: a prompt on screen is a wait event (src pane) with
// attention permission, question or plan; a positively idle composer (empty
// or holding a draft) is a wait.end with reason idle, and the agent at work right after a prompt a
// wait.end with reason busy (the prompt was answered). With --watch it
// follows tmux (control mode) and writes only changes: proc.up/proc.down
// as agents start and exit, pane events as screens change; it waits for a
// server when none runs, outlives one, follows each server named, and
// passes the events on its stdin through (the login pipeline's
// ag-tail --follow | ag-detect --watch | ag-fold).
//
// With --pane it is a prompt segment: one short line for the current pane
// ($TMUX_PANE) or PANE, from ag-fold's state file — "claude ⏳ Bash" — and
// nothing at all when no agent session is known there. It never runs tmux.
//
// A tmux server that cannot be reached is an error (exit 2), never an
// empty answer.
package main

import (
	"os"

	"github.com/agwatch/ag/cmd/internal/cli"
)

func main() {
	ctx, exit := cli.Signals()
	os.Exit(exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)))
}
