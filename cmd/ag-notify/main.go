// ag-notify reads state events, passes every line through, and tells the
// user when an agent needs them: a wait at once, a finished or failed turn
// after a short debounce, never for history, never twice a minute, not while
// they are looking at that pane, and taken back when it no longer holds.
//
// Synopsis:
//
//	ag-tail --follow | ag-fold | ag-notify [--backend auto|dbus|tmux|osc|exec|ntfy]... | ag-keys
//
// Description:
//
// Desktop notifications (D-Bus) offer Approve / Deny / Reply where the
// agent's key map supports them; a press becomes an "action" event on
// stdout carrying the state's token, for ag-keys downstream to carry out
// or refuse. Every delivery and retraction is written as a "notify" event.
// A backend that fails logs one line on stderr; the stream goes on.
// See ag-notify --help for the options.
package main

import (
	"os"

	"github.com/agwatch/ag/cmd/internal/cli"
)

func main() {
	ctx, exit := cli.Signals()
	os.Exit(exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)))
}
