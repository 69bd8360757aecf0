// ag-keys answers an agent by typing into its tmux pane, safely: approve,
// deny, reply, answer, plan approve/deny, each checked against the session's
// current state and the agent's verified key map; and it builds the resume,
// spawn and fork command lines with quoting no prompt can escape.
//
// Synopsis:
//
//	ag-keys approve|deny|plan-approve|plan-deny --pane %ID [--token T]
//	ag-keys reply|answer TEXT --pane %ID [--token T]
//	ag-keys [--pass] < actions.ndjson
//	ag-keys resume --pane %ID [--session ID]
//	ag-keys resume-command --agent claude --session ID [--model NAME]
//	ag-keys spawn --agent claude [--prompt TEXT] [--model NAME] [--fork SESSION] [--pane %ID]
//
// Description:
//
// An action resolves the pane's session in the state file ag-fold writes,
// and is refused (exit 1, a keys event saying why) when the state no longer
// matches the token, the agent is not waiting for that kind of answer, the
// pane's foreground process is a shell (the agent has gone), or the reply
// text is unsafe for that agent. Otherwise it types the keys (exit 0). With
// no action word it is a filter: it performs each action event on stdin and
// writes one keys event for each; refusals do not stop the stream, and an
// action from stdin must quote the state token.
//
// Replies are one line, control characters stripped, at most 2000
// characters, typed with send-keys -l and followed 150 ms later by Enter.
//
// resume types the agent's resume command into the pane, which must be at a
// POSIX shell. resume-command and spawn print the command line (spawn types
// it into a shell pane with --pane).
package main

import (
	"os"

	"github.com/agwatch/ag/cmd/internal/cli"
)

func main() {
	ctx, exit := cli.Signals()
	os.Exit(exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)))
}
