package main

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/cmd/internal/evfilter"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/sign"
	"github.com/agwatch/ag/filters/tmux"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

const long = `ag-notify reads events (normally ag-fold's state events) on stdin and writes
every line through to stdout unchanged. It notifies when a session starts
waiting for the user (at once), and when a turn ends done or failed after
working (after --debounce, so a turn that goes straight on is not reported).
A state whose time is older than --max-age on arrival is history (a replay)
and never notifies. One notification per session: a new one replaces the
old, and it is retracted when the wait resolves, the session moves on, or the
user looks at the pane. Each session and kind then stays quiet for
--cooldown, unless the user has looked at the session since. Nothing is
shown while the user is looking at the pane (tmux pane and window active in
an attached session; on macOS the terminal app frontmost too).

Backends (--backend, repeatable; --exec and --ntfy add theirs): auto picks
the first that works here (dbus, osc, tmux; on macOS terminal-notifier, then
osascript). dbus: org.freedesktop.Notifications on the session bus, with
Approve / Deny / Reply buttons where the agent supports them. tmux:
display-message on the clients attached to the pane's session (with
--tmux-popup, a popup to approve, deny or reply). osc: OSC 9, 777 or 99 to
the terminal of those clients (or --osc-tty), wrapped for tmux passthrough
where needed. exec: run --exec CMD (sh -c) per delivery and retraction, the
notification as one JSON line on stdin and AG_* variables set; the agent's
text is never put in the command line. ntfy: HTTP POST to an ntfy topic URL.

A button press is written to stdout as an "action" event quoting the
state's token; pipe into ag-keys to carry it out (ag-keys refuses it if the
session moved on). Deliveries and retractions are written as "notify"
events. A failing backend logs one line on stderr; the others and the
stream go on.

Replays and duplicates change nothing: a state older (its t, then gen)
than the last one taken in for its session, or the same gen and token
again, is passed through and otherwise ignored.

Hosts: sessions are keyed by host too, and the action a button makes names
the session's host, so "ag-keys" on each host types only what is meant for
it. Once a state of another host than this one ($AG_HOST, else the system's
host name) is seen, titles name the host ("Claude Code@devbox · shop").
When the link to a host is down (a stale state, a host.down event, or the
end of input for the hosts it carried) its shown notifications are
replaced by one saying so, without buttons, and stderr says so once; the
host confirming the same state gives them back. --sign FILE signs the
actions this ag-notify's own buttons make (never an action passing
through), for ag-keys --verify on the far side of a broker.`

type options struct {
	cli.Common
	cli.Filter
	cli.Tmux
	Backend    []string      `short:"b" long:"backend" value-name:"NAME" description:"where to notify, repeatable: auto (default), dbus, tmux, osc, exec, ntfy, osascript, terminal-notifier"`
	Exec       string        `long:"exec" value-name:"CMD" unquote:"false" env:"AG_NOTIFY_EXEC" description:"run CMD with sh -c per notification: JSON on stdin, AG_OP AG_KIND AG_AGENT AG_SESSION AG_PANE AG_TOKEN AG_TITLE AG_SUBTITLE AG_BODY set"`
	Ntfy       string        `long:"ntfy" value-name:"URL" env:"AG_NTFY_URL" description:"POST to this ntfy topic URL (https://ntfy.sh/TOPIC)"`
	NtfyToken  string        `long:"ntfy-token" value-name:"TOKEN" env:"AG_NTFY_TOKEN" description:"ntfy access token (Authorization: Bearer)"`
	NtfyClick  string        `long:"ntfy-click" value-name:"URL" description:"URL the phone opens when the ntfy notification is tapped"`
	OSC        string        `long:"osc" value-name:"KIND" choice:"auto" choice:"9" choice:"777" choice:"99" default:"auto" description:"OSC notification sequence: 9 (iTerm2, WezTerm, Ghostty), 777 (urxvt, foot), 99 (kitty), auto by terminal name"`
	OSCTTY     string        `long:"osc-tty" value-name:"PATH" description:"write OSC notifications to PATH (e.g. /dev/tty) instead of the pane's tmux clients"`
	Debounce   time.Duration `long:"debounce" value-name:"DUR" default:"1s" description:"how long done/failed must hold before notifying"`
	Cooldown   time.Duration `long:"cooldown" value-name:"DUR" default:"60s" description:"quiet time per session and kind after a notification"`
	MaxAge     time.Duration `long:"max-age" value-name:"DUR" default:"10s" description:"states older than this on arrival are history: never notified"`
	FocusCheck time.Duration `long:"focus-check" value-name:"DUR" default:"3s" description:"while notifications are shown, how often to ask tmux whether you are looking at their panes (to take them back)"`
	Timeout    time.Duration `long:"timeout" value-name:"DUR" default:"3s" description:"longest one delivery may take"`
	NoQuiet    bool          `long:"no-quiet" description:"notify even while the user is looking at the pane"`
	TmuxPopup  bool          `long:"tmux-popup" description:"tmux backend: a wait with buttons opens a display-popup to approve, deny or reply"`
	Sign       string        `long:"sign" value-name:"FILE" description:"sign the actions this program's buttons make with the key in FILE (ag-keys keygen), for ag-keys --verify"`

	// Popup mode: ag-notify as the command inside its own tmux popup.
	Popup      string `long:"popup" hidden:"true"`
	PopupID    string `long:"popup-id" hidden:"true"`
	PopupReply string `long:"popup-reply" hidden:"true" unquote:"false"`
}

// cmd is one run of ag-notify.
type cmd struct {
	prog   cli.Program
	opts   options
	env    func(string) string
	now    func() time.Time
	self   string // the ag-notify binary a tmux popup runs; "" = this one
	out    *cli.Writer
	filter *evfilter.Filter
	tmux   *tmux.Client
	agents notify.Agents
	policy *notify.Policy
	look   *looker
	host   hostname.Self
	key    sign.Key        // --sign
	down   map[string]bool // hosts said to be out of reach

	workers []*worker
	results chan result
	presses chan press
	wg      sync.WaitGroup
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCmd(stdout, stderr, os.Getenv)
	return c.main(ctx, args, stdin)
}

func newCmd(stdout, stderr io.Writer, env func(string) string) *cmd {
	return &cmd{
		prog: cli.Program{
			Name: "ag-notify", Usage: "[OPTIONS]",
			Short: "notify when an agent needs you; pass events through",
			Long:  long, Stdout: stdout, Stderr: &lockedWriter{w: stderr},
		},
		env: env,
		now: time.Now,
		out: cli.NewWriter(stdout),
		agents: notify.Agents{
			Name: func(id string) string {
				if p := providers.ByID(id); p != nil {
					return p.Name()
				}
				return ""
			},
			Keys: func(id string) (provider.KeyMap, bool) {
				if k, ok := providers.ByID(id).(provider.Keyed); ok {
					return k.Keys(), true
				}
				return provider.KeyMap{}, false
			},
		},
		results: make(chan result, 64),
		presses: make(chan press, 16),
	}
}

func (c *cmd) main(ctx context.Context, args []string, stdin io.Reader) int {
	rest, done, code := c.prog.Parse(&c.opts, args)
	if done {
		return code
	}
	if len(rest) > 0 {
		c.prog.Errorf("unexpected argument %q (see ag-notify --help)", rest[0])
		return cli.ExitError
	}
	if c.opts.Popup != "" {
		if err := popupMode(ctx, c.opts.Popup, c.opts.PopupID, c.opts.PopupReply, stdin, c.prog.Stdout); err != nil {
			c.prog.Errorf("popup: %v", err)
			return cli.ExitError
		}
		return cli.ExitOK
	}
	f, err := evfilter.New(c.opts.Filter)
	if err != nil {
		c.prog.Errorf("%v", err)
		return cli.ExitError
	}
	c.filter = f
	if c.opts.Sign != "" {
		if c.key, err = sign.Load(c.opts.Sign); err != nil {
			c.prog.Errorf("--sign: %v", err)
			return cli.ExitError
		}
	}
	socket, name := c.opts.Server()
	c.tmux = &tmux.Client{Socket: socket, Name: name}
	c.look = newLooker(c.tmux, c.now)
	c.host, c.down = hostname.Of(c.env), map[string]bool{}
	cfg := notify.Config{Debounce: c.opts.Debounce, Cooldown: c.opts.Cooldown, MaxAge: c.opts.MaxAge, Agents: c.agents, Self: c.host}
	if !c.opts.NoQuiet {
		cfg.Looking = c.look.Looking
	}
	c.policy = notify.New(cfg)

	backends, err := c.backends(ctx)
	if err != nil {
		c.prog.Errorf("%v", err)
		return cli.ExitError
	}
	for _, b := range backends {
		w := &worker{b: b, jobs: make(chan job, 64), results: c.results}
		c.workers = append(c.workers, w)
		c.wg.Add(1)
		go func() { defer c.wg.Done(); w.run(c.opts.Timeout) }()
	}
	code = c.loop(ctx, stdin)
	for _, b := range backends {
		b.Close()
	}
	return code
}

// input is one event read from stdin, with its line.
type input struct {
	line []byte
	e    event.Event
}

func (c *cmd) read(r *cli.Reader, lines chan<- input) {
	defer close(lines)
	for {
		var in input
		line, err := r.Next(&in.e)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.prog.Errorf("<stdin>: %v", err)
			}
			return
		}
		in.line = append(make([]byte, 0, len(line)+1), line...)
		in.line = append(in.line, '\n')
		lines <- in
	}
}

// loop is the one goroutine that decides and writes stdout: input lines,
// debounce deadlines, focus sweeps, backend results and button presses all
// come here, so events leave in the order they happened.
func (c *cmd) loop(ctx context.Context, stdin io.Reader) int {
	lines := make(chan input, 256)
	go c.read(c.prog.NewReader(stdin, "<stdin>"), lines)

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// The focus sweep ticks only while a notification is shown: an idle
	// ag-notify should not wake for nothing.
	every := max(c.opts.FocusCheck, 100*time.Millisecond)
	sweep := time.NewTicker(every)
	defer sweep.Stop()
	sweeping := true
	rearm := func() {
		timer.Stop()
		if next, ok := c.policy.Next(); ok {
			timer.Reset(max(next.Sub(c.now()), 0))
		}
	}
	rearm()

	code := cli.ExitOK
	eof := false
	stopping := false
	allDone := make(chan struct{})
	stop := func() {
		if stopping {
			return
		}
		stopping = true
		for _, w := range c.workers {
			close(w.jobs)
		}
		go func() { c.wg.Wait(); close(allDone) }()
	}
	for {
		if eof && !stopping {
			if _, ok := c.policy.Next(); !ok {
				stop()
			}
		}
		if shown := c.policy.Shown(); shown != sweeping {
			if shown {
				sweep.Reset(every)
			} else {
				sweep.Stop()
			}
			sweeping = shown
		}
		select {
		case <-ctx.Done():
			stop()
			c.finish(allDone)
			return cli.ExitInterrupted
		case in, ok := <-lines:
			if !ok {
				lines, eof = nil, true
				for _, h := range c.policy.Hosts() {
					c.lost(h, "the input ended")
					c.act(c.policy.Unreachable(h))
				}
				continue
			}
			if err := c.pass(&in); err != nil {
				if errors.Is(err, cli.ErrClosed) {
					stop() // the reader went away: end quietly
					c.finish(allDone)
					return cli.ExitOK
				}
				c.prog.Errorf("%v", err)
				code = cli.ExitError
			}
			c.hostNews(&in.e)
			c.act(c.policy.Observe(c.now(), &in.e))
			rearm()
		case <-timer.C:
			c.act(c.policy.Due(c.now()))
			rearm()
		case <-sweep.C:
			if c.policy.Shown() {
				c.act(c.policy.Sweep(c.now()))
			}
		case r := <-c.results:
			c.report(r)
		case p := <-c.presses:
			if p.note != nil {
				c.policy.Answered(p.note.Key)
			}
			c.emit(c.action(p))
		case <-allDone:
			c.finish(allDone)
			return code
		}
	}
}

// finish reports what the backends still deliver until they are all done.
func (c *cmd) finish(allDone <-chan struct{}) {
	for {
		select {
		case r := <-c.results:
			c.report(r)
		case p := <-c.presses:
			c.emit(c.action(p))
		case <-allDone:
			for {
				select {
				case r := <-c.results:
					c.report(r)
				default:
					return
				}
			}
		}
	}
}

func (c *cmd) pass(in *input) error {
	if !c.filter.Active() {
		return c.out.Raw(in.line)
	}
	return c.filter.Write(c.out, &in.e)
}

// act hands decisions to every backend's queue. A full queue (a backend
// stuck longer than its timeout, many times over) drops the job rather than
// hold up the stream.
func (c *cmd) act(ds []notify.Decision) {
	if len(ds) > 0 {
		c.look.forget()
	}
	for _, d := range ds {
		for _, w := range c.workers {
			select {
			case w.jobs <- job{op: d.Op, note: d.Note, reason: d.Reason}:
			default:
				c.prog.Errorf("%s: %s dropped: backend busy", w.b.Name(), d.Op)
			}
		}
	}
}

func (c *cmd) report(r result) {
	if r.err != nil {
		c.prog.Errorf("%s: %s: %v", r.backend, r.op, r.err)
		return
	}
	if r.ref == "" {
		return // nothing was there to retract
	}
	c.emit(notifyEvent(c.now(), r))
}

func (c *cmd) emit(e event.Event) {
	if err := c.filter.Write(c.out, &e); err != nil && !errors.Is(err, cli.ErrClosed) {
		c.prog.Errorf("%v", err)
	}
}

// notifyEvent records a delivery or retraction.
func notifyEvent(now time.Time, r result) event.Event {
	n := r.note
	e := event.New(event.Notify, now, n.Agent, n.Session)
	e.Src, e.Pane, e.Host, e.Action, e.Backend, e.Ref = event.SrcNotify, n.Pane, n.Host, r.op.String(), r.backend, r.ref
	e.Status, e.Attention, e.Tool, e.Token, e.Reason = n.Kind, n.Attention, n.Tool, n.Token, r.reason
	e.Text = n.Subtitle
	e.ID = event.MakeID(event.SrcNotify, n.Host, n.Agent, n.Session, n.Token, r.op.String(), r.backend, r.ref)
	return e
}

// actionEvent is a press for ag-keys: what to do, to which pane, and the
// token the notification was offered under.
func actionEvent(now time.Time, p press) event.Event {
	n := p.note
	e := event.New(event.Action, now, n.Agent, n.Session)
	e.Src, e.Pane, e.TTY, e.Host, e.Action, e.Token = event.SrcNotify, n.Pane, n.TTY, n.Host, p.action, n.Token
	e.Attention, e.Backend = n.Attention, p.backend
	e.Text = notify.SanitizeReply(p.text)
	// The same press on the same offer is the same request: one id.
	e.ID = event.MakeID(event.SrcNotify, n.Host, n.Agent, n.Session, n.Token, p.action, e.Text)
	return e
}

// action is a press as this ag-notify writes it: signed with --sign. Only
// presses of its own buttons come here; actions in its input pass through
// as they are.
func (c *cmd) action(p press) event.Event {
	e := actionEvent(c.now(), p)
	if c.key != nil {
		c.key.Sign(&e)
	}
	return e
}

// hostNews says once that a host is out of reach (host.down, or a stale
// state), and forgets it when the host speaks again.
func (c *cmd) hostNews(e *event.Event) {
	switch {
	case c.host.Is(e.Host):
	case e.Kind == event.HostDown:
		why := "its link is down"
		if e.Reason != "" {
			why = e.Reason
		}
		c.lost(e.Host, why)
	case e.Kind == event.State && e.Stale != "":
		c.lost(e.Host, "its states are stale")
	case e.Kind == event.State:
		delete(c.down, e.Host)
	}
}

func (c *cmd) lost(host, why string) {
	if c.down[host] {
		return
	}
	c.down[host] = true
	c.prog.Errorf("lost touch with %s (%s): its sessions are shown stale until it is back", host, why)
}

// lockedWriter serialises stderr: backends and the reader report from
// their own goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
