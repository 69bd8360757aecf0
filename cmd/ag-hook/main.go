// ag-hook is the command agents' hooks run, and the tool that installs
// those hooks into each agent's config.
//
// Synopsis:
//
//	ag-hook AGENT                  (run by the agent: payload on stdin)
//	ag-hook statusline [--then CMD] [--then-timeout D] [--format TEMPLATE]
//	ag-hook install --agent AGENT [--dry-run] [--statusline] [--hook PATH]
//	ag-hook uninstall --agent AGENT [--dry-run]
//	ag-hook status [--agent AGENT]
//
// Description:
//
// `ag-hook claude` reads one Claude Code hook payload on stdin, maps it to
// ag events (with the agent's pid, tty, tmux pane and cwd) and appends them
// to the spool, $AG_DIR/spool.ndjson (else $XDG_STATE_HOME/ag/, else
// ~/.local/state/ag/). It prints nothing and exits 0 on every path — an
// agent reads a hook's stdout and exit status as decisions — so garbage on
// stdin or an unwritable spool is logged only when $AG_DEBUG is set.
// `ag-hook statusline` is Claude Code's statusLine command: a meter event
// to the spool, a line to Claude.
//
// Those two are all this program runs, and it parses their few options by
// hand: an agent starts it dozens of times a turn, and start-up time grows
// with the binary. `install`, `uninstall` and `status` (which edit or read
// the agent's config structurally, touching only the handlers that run
// ag-hook), --help, --man and --version are run by ag-hook-setup, installed
// beside it, in this process's place. Run `ag-hook --help` or `ag-hook
// --man` for every option.
package main

import (
	"context"
	"os"
)

// No signal handling here: a hook runs for a millisecond, and setting it up
// costs a thread. The statusline's --then command handles its own.
func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
