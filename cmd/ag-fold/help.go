package main

import "github.com/agwatch/ag/cmd/internal/cli"

// The texts of ag-fold's --help and --man.

const help = `ag-fold turns the events ag-hook, ag-tail and ag-detect write into one
state per agent session — idle, working, waiting for you, done, failed or
gone — and writes a state event whenever one changes. It keeps the state
file that prompts, tmux and ag-keys read; with --tmux, tmux options too.
--snapshot prints the states once: folded from stdin when it is a pipe or
a file, else read from the state file.`

var examples = []string{
	"ag-tail --follow | ag-fold --tmux          # the login pipeline's fold",
	"ag-fold --snapshot --where ag::waiting     # who waits for you, as JSON",
	"ag-fold --snapshot --format '{{.Summary}}' </dev/null  # a prompt: ⏳2 ✓1",
}

const long = `## STATES

One state per session: an agent and its session id (a pane seen without a
session is keyed by its pane). Its status is idle, working, waiting (with
attention permission, question or plan, and the tool), done (the turn
finished), failed (the agent showed an error for good: reason, text) or
gone (the session ended or its process died). Each state event carries
everything a reader needs: agent, session, host, pane, pid, tty, cwd,
branch, transcript, status, attention, tool, text, prompt, pending, since
(when the status last changed), gen (counted up whenever status, attention
or tool change), token ("<since in Unix ms>.<gen>", what a button press
must quote) and the meters: model, tokens summed over the session,
context, cost_usd, limits. While more than one session of one process of
an agent that hosts many (OpenCode's server) waits, each of those waits
carries ambiguous: true, and no buttons or keys are offered for it.

## WHICH OBSERVATION WINS

- An observation older than the one that set the status does not change
  it; at the same moment a hook outranks the transcript.
- A prompt typed starts a turn (working); the end of the turn is done,
  unless background agents still run (it stays working, counting them
  down).
- A sub-agent's events never end the session's wait or turn, but a
  sub-agent's permission prompt is the session's wait.
- A wait ends when a hook says the agent went on, when the transcript
  shows the tool's result, or when the agent's screen shows it at work
  again (ag-detect --panes): the prompt was answered.
- The screen can also turn a wait into a question or a plan (the hook
  cannot tell them apart) and, once a wait is older than --grace, end it
  when it shows the empty prompt again (Escape dismisses a prompt without
  a hook). A working session with nothing in flight goes idle when the
  screen shows the empty prompt for 5 s.
- A permission prompt for a command ends as soon as that command is seen
  running under the agent's process (checked every --check): no hook
  fires before the command ends.
- For an agent with no hook for its permission prompt (Cursor), a tool
  call its hooks started that has not ended after 10 s is a probable
  approval wait: waiting with reason "estimated" and no buttons, until
  the screen shows the prompt (a wait like any other) or anything else
  (working again), or the call, the turn or the session ends; parallel
  calls are kept apart by tool id.
- Escape (an interrupt in the transcript) is idle; /compact typed at the
  prompt ends idle.
- An agent that runs one session per process (Claude Code, Codex's
  terminal UI) and speaks for a new one has left the old one: gone. So
  has the one it ran meanwhile when it takes a prompt in a session it
  had left.
- A failure or an Escape the transcript shows a moment before a hook says
  the turn ended is how that turn ended. For an agent whose hooks alone
  say when its turns end (Gemini CLI), the transcript's end of a turn is
  no news once its hooks were heard.
- A wait that says nothing of its own (Gemini's question or plan) keeps
  the text of the call it is for.
- A session with no pane and no pid (Codex's shared background server
  runs hooks with no terminal) gets the pane of the one Codex pane
  ag-detect saw in its folder, when there is exactly one.

## THE STATE FILE

$AG_DIR/state.json, else $XDG_RUNTIME_DIR/ag/state.json, else state.json
in the state folder ($XDG_STATE_HOME/ag, ~/.local/state/ag). It is
replaced atomically after each burst of input, at most every --debounce,
and at the end; gone sessions stay --keep-gone. It names the ag-fold that
keeps it (pid, host, start time, --check), and while stdin is open that
ag-fold confirms it every --check. Every --check it also looks for the
sessions' processes (and, on Linux and macOS, their start times, so a pid
taken by another process does not pass, and a zombie — exited, not yet
reaped — is dead); dead ones are gone. So is one, on Linux, that lost
the terminal it ran on (its pane closed, and it ignored the hang-up).

Readers believe the file only while its ag-fold runs and confirms it: a
session whose process is gone is shown as gone, and when nobody keeps
the file (the pipeline stopped, the machine rebooted) every other state
read back says "stale" with why. ag-detect --pane then shows "claude ?",
a summary "?2", --snapshot the states with their stale member, --table
"? waiting" in their rows and why below them, and
--snapshot --tmux pushes nothing (it clears what a dead pipeline left in
tmux). A folder given with --state must exist. A file another running
ag-fold keeps is left to it, with a warning.

## TMUX

With --tmux each session's pane gets @ag_agent @ag_session @ag_status
@ag_icon @ag_attention @ag_tool @ag_model @ag_context_left @ag_limit_5h
@ag_limit_week; each window the worst of its agent panes (waiting >
failed > working > done > idle) as @ag_window_status @ag_window_icon
@ag_window_agent @ag_window_attention @ag_window_tool; the server the
counts @ag_waiting @ag_failed @ag_working @ag_done and @ag_summary
("⏳2 ✓1"). One tmux command per change, with only what changed; a
session's options go when it is gone, all of them when ag-fold ends, and
what an earlier run left when this one starts. A tmux error is said once
and retried. --snapshot --tmux pushes the state file once.

## OTHER HOSTS

Every state carries its host ($AG_HOST, else the system's name); two
hosts' sessions, panes and pids never mix, and only this host's processes
are checked. Another host's states are taken as they come when newer than
the one held, kept in the state file and the tmux counts (never on this
server's panes). A host.down event marks that host's sessions stale
("lost touch with HOST: why") until it sends them again; they are dropped
after --keep-gone. --publish CMD runs CMD (sh -c) with every state on
stdin after the states change, at most every second and again every
--publish-every: a retained snapshot for late subscribers.

Within a host, states are ordered by their gen (counted up at every
change of status, attention or tool), then, at the same gen, by time; a
lower gen dated later is a fold that started over. So no one state — a
gen from nowhere, a date in 9999 — holds a session: the next one newer by
the other passes.

## BOUNDS

What other hosts send comes from a broker anyone with its password may
publish to, so it is bounded; each bound, when it first bites on a host,
is said in one line on stderr.

- An event dated more than a minute ahead of this clock is dated as the
  newest event before it that was not (this host's too: a clock stepped
  back). Every tick, what a session holds dated ahead of the clock comes
  back to it.
- Each other host may keep --host-sessions sessions (256), all of them
  --remote-sessions (4096), and at most 256 other hosts are kept. A new
  session past a bound takes the place of the least urgent, oldest one
  (gone, idle, done, failed, working, then waiting) of the host that keeps
  the most; a text of another host's state is cut at 4 KB.
- Each host's state changes pass at --host-rate a second (20) after a
  burst of two seconds' worth; the rest wait, the newest of each session
  only, and pass as the rate allows, one host after another, all hosts
  together at five times the rate. A host that keeps to its rate never
  waits.
- With --quiet-host DUR, a host heard of nothing that long has its
  sessions marked stale, dropped --keep-gone later (ag-mqtt's workstation
  uses 5m: hosts publish their snapshot every minute).

## TEMPLATES

--snapshot --format TEMPLATE prints one line for all sessions, from a Go
template (text/template's syntax). Fields: .Summary ("⏳2 ✓1", per host
when there are several), .Waiting .Failed .Working .Done .Idle .Stale
.Total (counts of sessions not gone), .Sessions (the states), .Hosts
(whether more than one host is in them). Lower-case names work too
(.summary). Nothing is printed for an empty line; no state file is exit 1
with no message, as a prompt wants it.

` + cli.JQManual

func program() cli.Program {
	return cli.Program{Name: "ag-fold", Usage: "[OPTIONS] < events",
		Synopsis: []string{"--snapshot [--table | --jq EXPR | --format TEMPLATE] [OPTIONS]"},
		Short:    "fold agent events into one state per session",
		Help:     help, Examples: examples, Long: long}
}
