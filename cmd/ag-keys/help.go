package main

import "github.com/agwatch/ag/cmd/internal/cli"

// The texts of ag-keys' --help and --man.

const help = `ag-keys answers an agent from outside its pane: it types approve, deny or a
reply into the tmux pane, in the keys that agent takes, and refuses (exit
1) when the answer no longer fits — the session moved on, the pane shows
something else, the text is unsafe. With no action it performs the button
presses ag-notify writes. It also jumps to the pane that waits for you,
and prints or types the command lines that resume, start or fork agents.`

var examples = []string{
	"ag-keys approve --pane %3                  # allow the command Claude asks for",
	"ag-tail --follow | ag-fold | ag-notify | ag-keys  # perform button presses",
	"ag-keys spawn --prompt 'fix the test' --model opus  # print a command line",
}

const long = `## ACTIONS

One word, then --pane (or --session: a background session, which has no
pane, is shown in a hidden tmux session running claude attach <job>, typed
into there after the same checks, and left as it was):

  approve        a permission wait: allow once (a plan wait: approve it)
  deny           a permission wait: refuse (a plan wait: reject it)
  plan-approve   a plan wait only (Claude: "2", never "1", auto mode)
  plan-deny      a plan wait only
  reply TEXT     a permission or plan wait: dismiss it and say TEXT (a
                 deny with feedback); a question: the answer; done, idle
                 or failed: TEXT at the prompt
  answer TEXT    a question: the answer (in a picker that is read — Claude's
                 one question, omp's ask, Gemini's and Copilot's ask_user
                 — an option's label picks that option; other text goes
                 into its own-answer row; a field of free text, Copilot's,
                 takes the text straight in)
  open           a window attached to a background session (claude
                 attach <job>); a session with a pane: focus it

An action is refused (exit 1, with a keys event saying why) when --token
no longer matches the session's state (a token ahead of the state file,
a press quicker than ag-fold's --debounce, waits up to 2s for it), the
agent is not waiting for that kind of answer, the pane's foreground is a shell, an editor or a pager,
or the text is unsafe for the agent. On a wait the pane is read first:
the hook reports a plan or a question picker as a permission prompt, so
the screen decides, and a pane showing the empty prompt or the agent at
work refuses. A wait the hooks called a permission is approved as a plan
(Claude's "2", on a permission prompt "don't ask again") only when the
pane shows the plan picker's own rows and its plan file. A reply is made
one line (control and bidi characters removed, and what shows nothing at
its start — a zero-width space, a byte order mark — so the check below
sees what the agent will, at most 2000 characters); a leading / or ! gets
a space in front for Claude (it would run a command or shell mode), and
is refused where the agent trims; Enter follows 150 ms later. A trailing
";" is typed as itself.

A reply is read against the pane too: one showing a prompt the state
does not know of, or a prompt that takes no reply (Gemini's shell mode),
refuses. A reply into a prompt's own input (Gemini's question and plan)
is pasted, gets its Enter only once the pane shows it there (else an
error, no Enter), and is refused if it is one digit (it would pick that
option). Where an agent can leave a reply unsent (Gemini reads a late
Enter as a newline), the pane is watched for 3 s and Enter pressed again.

With no word, ag-keys reads action events (from ag-notify) on stdin and
performs each; each must quote the state's token. A line longer than
64 KB (an action is a few) is reported and skipped, unless --pass. With
-n nothing is typed and nothing recorded: the real press still counts.
Every action writes one keys event: status sent, refused or error, the
reason, and what was typed. A refusal or an error is also one
"ag-keys: …" line on stderr, for a person; and it is shown on the tmux
client named with --client (the tmux plugin's keys pass theirs), or, for
a press in ag-notify's tmux popup, on the clients of the pane's session.

## COMMANDS

  focus           select --pane's window and pane (--client: switch that
                  client to it); with --next-waiting, the next pane after
                  --pane whose session waits, cycling; exit 1 when none;
                  with --choose, a tmux menu of every agent session, most
                  urgent first: picking one focuses its pane
  resume          type the agent's resume command into --pane, at a POSIX
                  shell (the session from the state file, or --agent and
                  --session)
  resume-command  print the resume command for --agent and --session
  spawn           print the command that starts --agent with --prompt
                  submitted (--fork SESSION: a fork of that session's
                  history); with --pane, type it into that shell pane

Command lines start with "command " (no alias or function of that name
runs), put the prompt, id and path in POSIX single quotes, and take
--model only as a plain word ([A-Za-z0-9._:/-]+, no leading -).

## OTHER HOSTS, SIGNED ACTIONS

ag-keys acts only on actions that name its host ($AG_HOST, else the
system's name) or none; another host's are skipped without a word. The
same action is performed once, across restarts too (keys-done beside the
state file). For actions that crossed a network:

  keygen FILE     write a new random key to FILE (0600, never over a file)
  sign FILE       sign the action events on stdin (--host for those that
                  name none); other lines pass through
  --verify FILE   obey only actions signed with that key, for this host, at
                  most --window old (or ahead), not performed before

A key file that group or others may read is refused.

` + cli.JQManual

func program() cli.Program {
	return cli.Program{Name: "ag-keys", Usage: "approve|deny|plan-approve|plan-deny|open --pane %ID|--session ID [--token T]",
		Synopsis: []string{
			"reply|answer TEXT --pane %ID [--token T]",
			"[--pass] < actions",
			"focus [--next-waiting | --choose] [--pane %ID] [--client NAME]",
			"resume --pane %ID | resume-command --session ID | spawn",
			"keygen FILE | sign FILE < actions",
		},
		Short: "answer an agent by typing into its pane; resume, spawn and fork command lines",
		Help:  help, Examples: examples, Long: long}
}
