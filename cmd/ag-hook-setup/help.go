package main

import (
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
)

// The texts of ag-hook's --help and --man (ag-hook passes those here).

const help = `ag-hook is what the agents' hooks run: "ag-hook claude" reads one hook
payload on stdin and appends what it means to ag's spool, in a few
milliseconds, printing nothing an agent could take for a decision.
"ag-hook install" adds those hooks to an agent's config and keeps the file
you had; "uninstall" gives it back; "status" says how they are.`

var examples = []string{
	"ag-hook install --agent claude     # ag's hooks into ~/.claude/settings.json",
	"ag-hook status                     # claude: installed in ~/.claude/...",
	"ag-hook uninstall --agent claude   # settings.json back as it was",
}

const long = `## THE HOOK

"ag-hook AGENT" reads one hook payload on stdin (Copilot CLI's name no
event: "ag-hook copilot EVENT") and appends the events it means to the
spool: $AG_DIR/spool.ndjson, else
$XDG_STATE_HOME/ag/spool.ndjson, else ~/.local/state/ag/spool.ndjson (a
relative $AG_DIR or $XDG_STATE_HOME is ignored, as the XDG spec says). The
file is 0600 in a 0700 folder, rotated to spool.ndjson.1 past 16 MiB or
$AG_SPOOL_MAX bytes. Each event records the agent's pid and terminal
(walking up from ag-hook: a process named like the agent, else the first
with a terminal, else the parent), $TMUX_PANE, the folder and the host;
no other environment variable is read into an event.

It prints only what the agent wants of a hook that decides nothing
(nothing, or "{}") and exits 0 whatever happens — bad input and an
unwritable spool included — because agents read a hook's output and exit
status as decisions. AG_DEBUG=1 logs what went wrong to ag-hook.log in the
state folder (AG_DEBUG=/abs/path logs there).

## INSTALL, UNINSTALL, STATUS

install adds one handler per hook event ag maps to the agent's config,
running this ag-hook by its absolute path (quoted: spaces are fine); a
--hook that is not an executable ag-hook is refused, and so is an agent
that is not on this machine (no config folder, not on $PATH) unless
--force. Everything else in the file is kept, byte for byte: ag's new
groups go after the last one, in the file's own layout. The file is
replaced atomically (a symlink stays a symlink); all the files of one run
change, or none. FILE.ag-backup keeps the file as it was before ag first
changed it, and no later write of ag's replaces it. A file that is not
valid JSON (or TOML), or not the shape the agent reads, is left alone:
exit 2. Installing twice changes nothing; install repairs only what is
wrong. When it turns on a setting you had turned off (Codex's
codex_hooks = false) it says so.

uninstall removes exactly the handlers that run ag-hook with the agent's
name. When what is left means what your file before ag meant, it is
written back byte for byte from the backup; a file ag's install made is
removed; when the file changed since (by you or the agent), what is left
is kept and uninstall says it is not the original. A backup the file is
byte for byte again is removed, and so is a config folder ag's install
made, once it is empty again. --all takes ag out of every agent whose
config has anything of ag's; an agent's config ag cannot read stops it
before anything is changed.

status prints one line per agent on this machine: installed (and where
your file before ag is kept), not installed, needs repair (what, in a few
words), or installed but not trusted (Codex runs new hooks only once you
trust them in /hooks: exit 1, and how). --verbose says every reason and
names the files, for every agent. With --agent each named agent must be
installed and working (exit 0); without, at least one, and none in need
of repair or trust.`

const statuslineHelp = `Claude Code runs "ag-hook statusline" as its statusLine command (Qwen Code
"ag-hook statusline --agent qwen" as its ui.statusLine): the JSON on stdin
(model, cost, context, the 5-hour and 7-day limits) becomes one meter
event in ag's spool, and one line is printed for the agent to show: ag's
(the model, context left, cost, limits, how many other agents wait), from
--format, or with --then the status line you had. It always prints a
line and exits 0: Claude blanks the line otherwise.`

var statuslineExamples = []string{
	"ag-hook install --agent claude --statusline   # wrap the statusLine you have",
	"ag-hook install --agent qwen --statusline     # Qwen Code's ui.statusLine",
	"ag-hook statusline --format '{{.Dir}} {{.Model}}{{with .Left}} {{.}}%{{end}}'",
}

const statuslineLong = `With --then CMD, "sh -c CMD" gets the same stdin bytes and environment
and its output is printed instead, so the statusLine you had keeps showing
("ag-hook install --agent claude --statusline" sets this up and keeps the
old command; uninstall gives it back byte for byte). A Qwen Code
ui.statusLine of type "preset" is no command: install refuses to replace it. If CMD fails (a
non-zero exit, killed, or no answer within --then-timeout) ag's own line
is printed and CMD's process group is killed. The spool append never
fails the line nor holds it more than 200 ms; an unchanged reading is
appended again only after ten minutes.

## TEMPLATE FIELDS

  .Model       the display name, else the id; .ModelID
  .Session .Cwd .Dir (the last element of .Cwd) .ProjectDir .Version
  .Transcript
  .Cost        dollars (a pointer: {{with .Cost}}{{usd .}}{{end}})
  .Context     .Used .Size .LeftPct; .Left: context left, in %
  .Limits      each .Window ("5h", "7d"), .UsedPct, .ResetsAt
  .Waiting     how many other sessions wait for you (ag-fold's state
               file); .Others, their states
  functions    usd pct si until base

Lower-case and JSON names work too (.model, .cwd).`

func program(agents []string) cli.Program {
	return cli.Program{Name: "ag-hook", Usage: "AGENT < payload",
		Synopsis: []string{
			"install --agent AGENT [--dry-run] [--statusline] [--hook PATH]",
			"uninstall --agent AGENT | --all [--dry-run]",
			"status [--agent AGENT] [--verbose]",
			"statusline [--agent ID] [--then CMD] [--format TEMPLATE]",
		},
		Short: "the command agents' hooks run; installs those hooks",
		Help:  help + " AGENT is " + strings.Join(agents, ", ") + ".", Examples: examples, Long: long,
		Commands: map[string]cli.CommandHelp{
			"install": {Usage: "--agent AGENT [OPTIONS]", Examples: []string{
				"ag-hook install --agent claude --dry-run     # see what would change",
				"ag-hook install --agent claude --agent codex --statusline",
			}},
			"uninstall": {Usage: "--agent AGENT | --all [OPTIONS]", Examples: []string{
				"ag-hook uninstall --agent codex",
				"ag-hook uninstall --all        # ag out of every agent (make uninstall)",
			}},
			"status": {Usage: "[--agent AGENT] [--verbose]", Examples: []string{"ag-hook status --verbose"}},
		},
	}
}
