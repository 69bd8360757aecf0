package main

import "github.com/agwatch/ag/cmd/internal/cli"

// The texts of ag-notify's --help and --man.

const help = `ag-notify reads ag-fold's states and tells you when an agent needs you:
a wait at once, a finished or failed turn a moment later — never for a
replay of old states, not twice a minute, not while you look at that pane —
and takes the notification back once it no longer holds. Every event
passes through; a button you press comes out as an action event for
ag-keys, which types it into the agent's pane.`

var examples = []string{
	"ag-tail --follow | ag-fold | ag-notify | ag-keys    # the login pipeline",
	"... | ag-notify --backend tmux --tmux-popup | ag-keys   # buttons in tmux",
	"... | ag-notify --ntfy https://ntfy.sh/my-topic     # to a phone",
}

const long = `## WHEN

- A session starts waiting for you (permission, a question, a plan): at
  once.
- A turn ends done or failed after working: after --debounce, and not if
  the session goes straight on.
- Never for history: a state older than --max-age when it arrives (the
  replay when the pipeline starts again) notifies nothing.
- At most once per session and kind per --cooldown, unless you looked at
  the session since.
- Not while you look at the pane: its tmux pane and window active in an
  attached session (on macOS the terminal in front too); --no-quiet turns
  this off.

There is one notification per session, titled "<Agent> · <project>:<branch>"
with what is pending (the tool and command, the question, the plan's first
lines, or the last prompt). It is taken back when the wait resolves, the
session moves on, or you look at the pane. --where EXPR chooses which
states may notify (every event still passes through, as read); --jq
changes what is written, ag-notify's own events included. A line that is
not an event is reported and not passed on (exit 2 at the end).

## BACKENDS

--backend is repeatable; --exec and --ntfy add theirs. auto (the default)
takes the first that works here and says on stderr, once, which and why:
dbus when a notification server answers; else tmux, with its popup, when a
tmux server runs (OSC 9 inside tmux is often swallowed); else osc to a
terminal (on macOS terminal-notifier, then osascript, first).

  dbus   org.freedesktop.Notifications on the session bus, with Approve,
         Deny and Reply buttons where the agent takes them
  tmux   display-message on the pane's clients; --tmux-popup opens a popup
         for a wait, to approve, deny or reply
  osc    OSC 9, 777 or 99 to those clients' terminal (or --osc-tty),
         through tmux when nested
  exec   sh -c CMD per delivery and retraction: the notification as one
         JSON line on stdin, AG_OP AG_KIND AG_AGENT AG_SESSION AG_PANE
         AG_TOKEN AG_TITLE AG_SUBTITLE AG_BODY set; the agent's text is
         never put in the command line
  ntfy   an HTTP POST to a topic URL (Title, Priority, Tags, Click;
         with a page the phone reaches, Actions: see WEB)
  web    the answer page's open tabs, through the browser's own
         notifications (added by --web)

A backend that fails says so in one line on stderr, once until it works
again; the others and the stream go on. Each backend serves one host's
notifications after another's, 32 at most waiting per host: past them a
notification is dropped, and "busy" said once until the backend caught
up. Everything shown is made safe first: no escape sequence, control or
bidi character; markup escaped for a server that reads it (summary and
body); the exec environment free of NUL and controls (the JSON on stdin
holds the exact session and token).

## BUTTONS

A press is written to stdout as an action event quoting the state's
token; ag-keys downstream types it into the pane, or refuses it if the
session moved on. Each delivery and retraction is written as a notify
event. A replay or a duplicate state changes nothing.

## OTHER HOSTS

Sessions are keyed by host; the action a button makes names the
session's host, so the ag-keys of each host types only what is meant for
it. Once another host's state is seen, titles name the host ("Claude
Code@devbox · shop"). When the link to a host is down (a stale state, a
host.down event, the end of input for the hosts it carried) its
notifications are replaced by one saying so, without buttons, and stderr
says so once; the host confirming the state gives them back. --sign FILE
signs the actions this ag-notify's buttons make, for ag-keys --verify.
Another host gets 20 notifications at once and 60 a minute after that
(said once when it runs out): a wait past them is told when they allow,
if it still waits. A state is newer than the last one of its session
when its gen is higher, or at the same gen when it is later.

## WEB

--web ADDR serves one page, for a phone or a browser, listing every
session ag-notify sees (waiting ones first) live, with the buttons the
agent's key map supports: Approve, Deny, each option of a question,
Approve plan and Keep planning, a reply, Open for a background session.
A press is an action event like a desktop button's (signed with --sign).
The page shows what ag-keys did with it from the keys events ag-notify
reads, on stdin or in --web-keys FILE (ag-keys >> FILE).

At start ag-notify prints a one-time pairing link and its QR code on
stderr; a paired browser keeps a cookie (--web-expire) and can make more
links. Every act needs the cookie, the page's origin, its CSRF token, and
stays under a rate limit. --web-revoke ID (or all) cuts a browser off,
also while ag-notify runs. Off loopback the page needs --web-cert and
--web-key, or --web-proxy with --web-url https://... (a TLS proxy in
front). ntfy's notifications get the buttons (each a single-use link that
expires with the wait) when --web-url is not loopback. The key and the
devices live in the state directory (web.key, web-devices.json).

` + cli.JQManual

func program() cli.Program {
	return cli.Program{Name: "ag-notify", Usage: "[OPTIONS] < states",
		Short: "notify when an agent needs you; pass events through",
		Help:  help, Examples: examples, Long: long}
}
