// ag-tail reads what agents wrote — the spool ag-hook appends to and the
// agents' own transcripts — and writes it as ag events, one per line.
//
// Synopsis:
//
//	ag-tail [--once | --follow] [--since DURATION] [--agent NAME] [--where EXPR] [--jq EXPR]
//
// Description:
//
// With --once (the default) it reads everything that exists and exits; with
// --follow it replays the same and then keeps going, discovering new
// transcripts through file-system notifications. Spool events pass through
// as they are; transcript lines become turn.start, tool.start, tool.end,
// turn.end, interrupt and meter events. See ag-tail --help.
package main

import (
	"os"
	"runtime/debug"

	"github.com/agwatch/ag/cmd/internal/cli"
)

// memLimit is the heap size past which the runtime collects harder: above
// what a follower keeps (its files' parsers, the meter ids, the read-ahead
// of a replay), below the 64 MiB a pipeline stage may take.
const memLimit = 40 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memLimit)
	}
	widenPipe(os.Stdout)
	ctx, exit := cli.Signals()
	os.Exit(exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)))
}
