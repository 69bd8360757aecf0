package main

import "github.com/agwatch/ag/cmd/internal/cli"

// The texts of ag-detect's --help and --man.

const help = `ag-detect finds the agents running in tmux panes and writes a proc.up
event for each (pane, pid, agent, folder); with --panes it also reads each
agent's screen and reports a prompt on it as a wait, and the empty prompt
or the agent at work as the end of one. --watch keeps following, through
tmux's control mode, and passes the events on stdin through. --pane is a
prompt segment instead: one short line for this pane from ag-fold's state
file.`

var examples = []string{
	"ag-tail --follow | ag-detect --watch --all --panes | ag-fold",
	"ag-detect --explain %3                      # why ag says what it says of %3",
	"ag-detect --pane                            # \"claude ⏳ Bash\" for this pane",
	"set -g status-right '#(ag-detect --pane #{pane_id})'          # in tmux.conf",
}

const long = `## WHICH AGENT RUNS WHERE

With --all (the default) ag-detect lists every pane of the tmux server
($TMUX, or -S/-L) that runs an agent as a proc.up event (src proc): pane,
pid, tty, agent, cwd and argv0, and the session when the command line
names one (codex resume <id>). The agent is found from the pane's
foreground process — its program, argv[0], or the script an interpreter
such as node runs — looking through shells and launchers to their children
and grandchildren (a handful of processes at most). For a wrapper it
cannot see through (ssh, docker exec), export AG_AGENT=claude before
starting it. A tmux server that cannot be reached is an error (exit 2),
never an empty list.

## SCREENS

With --panes it captures each agent pane and reads the bottom of the
screen with the agent's own rules:

- a permission prompt, a question picker or a plan to approve is a wait
  event (src pane; attention permission, question or plan; the tool and
  the command, question or plan when shown);
- the empty prompt (or one holding a draft), with nothing at work, is a
  wait.end with reason idle: the prompt was dismissed;
- the agent at work right after a prompt is a wait.end with reason busy:
  the prompt was answered, which no hook says until the tool ends.

ag-fold takes these to tell a question or a plan from a permission (the
hook cannot) and to end waits the hooks never end. For an agent whose
screen alone says when it works (an agent definition with no hooks), a
working screen after an idle one is a turn.start, and the prompt back
after work or a prompt a turn.end. Every event carries a short why: the
rule that took the process, the state with its line and pattern.

With --watch ag-detect follows tmux and writes only what changed: proc.up
and proc.down as agents start and exit, and screen events as they change.
It asks tmux nothing on a timer: a control-mode client per session (tmux
-C, attached with ignore-size) hears a pane print and a pane's program
change, and only that pane is read again (20 ms after it printed; while
it goes on printing every 250 ms, backing off to every second while what
it shows means the same). A tmux before 3.2 is asked every --interval
instead.

--watch outlives tmux, as a member of the login pipeline must (a stage
that ends has the pipeline restarted): with no server on the socket it
waits for one, asking tmux nothing meanwhile (the socket's folder is
watched; a server starts by making its socket, and a connect every 30 s
catches what a notification missed); a server gone takes its agents
from view (proc.down, at once when nothing listens any more, after 2 s
of failed looks otherwise), and the next one on the socket is followed.
With no tmux at all it says so once and costs nothing. -S and -L may be
given more than once: each server is followed on its own (pane ids are
each server's own: see ag-detect.md). Events on stdin are passed through,
whole lines among ag-detect's own (ag-tail --follow | ag-detect --watch |
ag-fold). It ends on a signal, or when its output's reader goes.

## AGENT DEFINITIONS

Agents ag has no Go package for are described by TOML files: built in,
and the user's, $XDG_CONFIG_HOME/ag/agents/ID.toml (which may also
replace a built-in one's sections, or an agent written in Go's screen
rules). --check-agents reads every one (or the FILEs named) as ag does:
each agent accepted on stdout, each fault on stderr as FILE:LINE: why,
exit 1 when one is refused; every other mode but --pane says the refused
ones once as it starts. The format: doc/agent-definitions.md.

## EXPLAIN

--explain PANE prints, for people, what ag makes of one pane and why:
the processes looked at and what each was, the agent and the rule that
took it, where its rules come from, the screen state with its line and
pattern, for every other state what kept it out, and what ag-keys would
type for each answer with the screen as it is. Exit 1 when no agent runs
there.

## PROMPT SEGMENT

With --pane it prints one line for this pane ($TMUX_PANE) or PANE, from
ag-fold's state file, and never runs tmux:

  claude ⏳ Bash   waiting for permission to run Bash
  claude ❓        a question       claude 📋   a plan to approve
  claude ⚙         working          claude ✓    done
  claude ✗         failed           claude      idle
  claude ?         no running ag-fold keeps the state file: not known
  (nothing)        no agent session here, or its process is gone

--format TEMPLATE is a Go template over the state's fields (.Agent
.Status .Attention .Tool .Text .Model .Cwd .Context .Limits .Stale …, and
their JSON names, .agent .status …) plus .Icon, .Detail (the tool of a
permission wait) and .Who (the agent, with its host when the state file
holds several). A field that is not there is named, with the fields
there are.

Every field is printed made safe for a terminal: what the agent, its
model or another host wrote loses its escape sequences, control and bidi
characters, and is cut at 256 characters (the default line's tool at 40).
In a tmux format — status-right '#(ag-detect --pane --for-tmux
#{pane_id})' — give --for-tmux: every # in it is doubled, so tmux shows
it and reads no #[style], #{format} or #(command) out of it.`

func program() cli.Program {
	return cli.Program{Name: "ag-detect", Usage: "[--all] [--panes] [--watch [--interval D]] [-S PATH | -L NAME]",
		Synopsis: []string{"--pane [PANE] [--format TEMPLATE] [--state FILE] [--for-tmux]", "--explain PANE | --check-agents [FILE...]"},
		Short:    "which agent runs in which tmux pane, and what its screen shows",
		Help:     help, Examples: examples, Long: long}
}
