package main

import "github.com/agwatch/ag/cmd/internal/cli"

// The texts of ag-detect's --help and --man.

const help = `ag-detect finds the agents running in tmux panes and writes a proc.up
event for each (pane, pid, agent, folder); with --panes it also reads each
agent's screen and reports a prompt on it as a wait, and the empty prompt
or the agent at work as the end of one. --watch keeps looking. --pane is a
prompt segment instead: one short line for this pane from ag-fold's state
file.`

var examples = []string{
	"ag-detect --watch --all --panes | ag-fold   # agents and screens, as they go",
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
hook cannot) and to end waits the hooks never end. With --watch ag-detect
looks again every --interval and writes only what changed: proc.up and
proc.down as agents start and exit, and screen events as they change. A
pane is captured again only after tmux reports activity in its window.
A server that does not answer is gone only after 2 s of failed looks
(then proc.down for its agents, and exit 2): one failed tmux call does
not end the watch.

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
there are.`

func program() cli.Program {
	return cli.Program{Name: "ag-detect", Usage: "[--all] [--panes] [--watch [--interval D]] [-S PATH | -L NAME]",
		Synopsis: []string{"--pane [PANE] [--format TEMPLATE] [--state FILE]"},
		Short:    "which agent runs in which tmux pane, and what its screen shows",
		Help:     help, Examples: examples, Long: long}
}
