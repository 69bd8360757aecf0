// ag-fold folds agent observations into one state per session: idle,
// working, waiting (permission, question, plan), done, failed or gone, with
// the meters, and keeps the state file that prompts and status lines read.
//
// Synopsis:
//
//	ag-tail --follow | ag-fold [--pass] [--state FILE | --no-state] [--where EXPR] [--jq EXPR]
//	ag-fold --snapshot [--where EXPR] [--jq EXPR]
//
// Description:
//
// It reads events on stdin and writes a state event whenever a session's
// state changes; each carries everything a reader needs (status,
// attention, tool, since, gen, token, meters), so no reader needs the
// events before it. The state file is replaced atomically, after each
// burst of input and at most every --debounce. While stdin is open it
// checks every --check that the sessions' processes live and marks dead
// ones gone. With --snapshot it prints the current states once and exits:
// folded from stdin when stdin is a pipe or a file, else read from
// the state file. See ag-fold --help.
package main

import (
	"os"
	"runtime/debug"

	"github.com/agwatch/ag/cmd/internal/cli"
)

// memLimit is the heap size past which the runtime collects however
// little time passed: well above what ag-fold keeps (a few MB, thousands
// of sessions), well below the 64 MiB a pipeline stage may take.
const memLimit = 40 << 20

func main() {
	// Every event read and state written is short-lived garbage over a
	// live heap of a few MB (one state per session): collect less often,
	// but collect harder near memLimit, so a long-running pipeline stays
	// small however much it replayed (GOMEMLIMIT, if set, decides).
	debug.SetGCPercent(400)
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memLimit)
	}
	ctx, exit := cli.Signals()
	os.Exit(exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)))
}
