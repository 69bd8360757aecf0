package main

import "github.com/agwatch/ag/cmd/internal/cli"

// The texts of ag-tail's --help and --man.

const help = `ag-tail reads what the agents wrote — the spool ag-hook appends to, and
each agent's own transcripts — and writes it as ag events, one per line:
prompts, tool calls and their ends, finished and failed turns, Escape,
token and context meters. --once (the default) reads what is there and
exits; --follow reads it and then follows the files as agents write.`

var examples = []string{
	"ag-tail --follow | ag-fold                   # the login pipeline's start",
	"ag-tail --once --since 24h | ag-fold --snapshot   # today's sessions",
	"ag-tail --once --where 'ag::kind(\"meter\")' --jq .tokens.out",
}

const long = `## WHAT IT READS

The spool (spool.ndjson.1, then spool.ndjson, in $AG_DIR, else
$XDG_STATE_HOME/ag, else ~/.local/state/ag), whose events pass through as
they are, and the agents' transcripts:

- Claude Code: ~/.claude/projects/*/*.jsonl, the same under each
  $CLAUDE_CONFIG_DIR and ~/.config/claude, and sub-agents' files
  <session>/subagents/agent-*.jsonl;
- Codex: rollouts under $CODEX_HOME/sessions, else ~/.codex/sessions;
- Gemini CLI: chats under ~/.gemini/tmp/*/chats/ ($GEMINI_CLI_HOME/.gemini
  when set), .jsonl and the older whole-file .json;
- Antigravity: ~/.gemini/antigravity-cli/brain/*/.system_generated/logs/
  transcript*.jsonl;
- the other agents ag knows, each where it keeps them (whole-file
  transcripts, SQLite databases).

Transcript lines become turn.start (prompts typed, not expansions),
tool.start, tool.end, turn.end, turn.fail (a request that failed for
good), interrupt and meter events (src log). A response written as several
lines counts once, also when the same response is in two files (the first
in path order keeps it, as ccusage counts).

## ORDER AND FOLLOWING

The spool first, then one file (or database) after another in path order,
each file's events in file order. --follow replays the same (bounded by
--since), then writes events as lines are written: new folders and files
are found through inotify (kqueue on macOS); truncated, removed and
renamed files are handled; a line is read only once its newline is
written. FIFOs and devices named like transcripts are never opened.

## BAD INPUT

A line that could carry an event and is not valid JSON is reported as
"ag-tail: FILE:LINE: why" and skipped (one line for a run of them); a file
that is not JSON Lines at all is said once. The stream goes on; --once
then exits 2.

` + cli.JQManual

func program() cli.Program {
	return cli.Program{Name: "ag-tail", Usage: "[--once | --follow] [--since DURATION] [--agent NAME]",
		Short: "read the spool and agents' transcripts as ag events",
		Help:  help, Examples: examples, Long: long}
}
