package main

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/agwatch/ag/cmd/ag-notify/web"
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

type options struct {
	Backend    []string      `short:"b" long:"backend" value-name:"NAME" description:"where: auto, dbus, tmux, osc, exec, ntfy, web (repeatable)" man:"also osascript and terminal-notifier on macOS; auto (the default) takes the first that works (see BACKENDS)"`
	Exec       string        `long:"exec" value-name:"CMD" unquote:"false" env:"AG_NOTIFY_EXEC" description:"run sh -c CMD per notification (JSON on stdin)"`
	Ntfy       string        `long:"ntfy" value-name:"URL" env:"AG_NTFY_URL" description:"POST to this ntfy topic URL"`
	NtfyToken  string        `long:"ntfy-token" value-name:"TOKEN" env:"AG_NTFY_TOKEN" description:"the ntfy access token (Bearer)"`
	NtfyClick  string        `long:"ntfy-click" value-name:"URL" description:"the URL a tap on the ntfy notification opens"`
	OSC        string        `long:"osc" value-name:"KIND" choice:"auto" choice:"9" choice:"777" choice:"99" default:"auto" description:"OSC sequence: 9, 777, 99, by terminal" man:"9 for iTerm2, WezTerm and Ghostty, 777 for urxvt and foot, 99 for kitty; auto by the terminal's name"`
	OSCTTY     string        `long:"osc-tty" value-name:"PATH" description:"write OSC to PATH, not to the pane's clients"`
	TmuxPopup  bool          `long:"tmux-popup" description:"tmux: a popup to approve, deny or reply"`
	Debounce   time.Duration `long:"debounce" value-name:"DUR" default:"1s" description:"done/failed must hold this long"`
	Cooldown   time.Duration `long:"cooldown" value-name:"DUR" default:"60s" description:"quiet per session and kind after one"`
	MaxAge     time.Duration `long:"max-age" value-name:"DUR" default:"10s" description:"older states are history: never notified"`
	FocusCheck time.Duration `long:"focus-check" value-name:"DUR" default:"3s" description:"how often to see whether you look" man:"while notifications are shown: tmux is asked whether you look at their panes, to take them back"`
	Timeout    time.Duration `long:"timeout" value-name:"DUR" default:"3s" description:"longest one delivery may take"`
	NoQuiet    bool          `long:"no-quiet" description:"notify even while you look at the pane"`
	Sign       string        `long:"sign" value-name:"FILE" description:"sign button presses with this key" man:"the key from ag-keys keygen; ag-keys --verify checks them on the far side of a broker"`
	webOptions
	cli.Tmux
	// --where is what may notify, not what passes (every event does).
	Where string `long:"where" value-name:"EXPR" unquote:"false" description:"notify only about states for which jq EXPR is true" man:"every event still passes through, as read (see JQ)"`
	JQ    string `long:"jq" value-name:"EXPR" unquote:"false" description:"write what jq EXPR makes of each event"`
	Raw   bool   `short:"r" long:"raw" description:"with --jq: a string result as plain text (jq -r)"`
	cli.Common

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
	filter *evfilter.Filter // --jq: what is written
	where  *evfilter.Filter // --where: what is notified
	at     cli.Place        // where the event being observed came from
	tmux   *tmux.Client
	agents notify.Agents
	policy *notify.Policy
	look   *looker
	host   hostname.Self
	key    sign.Key        // --sign
	web    *web.Server     // --web
	down   map[string]bool // hosts said to be out of reach

	workers []*worker
	failing map[string]string    // backend → the failure last said, so it is said once
	busy    map[string]time.Time // backends said to be busy (act): their last drop
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
		prog: func() cli.Program {
			p := program()
			p.Stdout, p.Stderr = stdout, &lockedWriter{w: stderr}
			return p
		}(),
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
		failing: map[string]string{},
		busy:    map[string]time.Time{},
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
	if msg := c.refuse(); msg != "" {
		c.prog.Errorf("%s (see ag-notify --help)", msg)
		return cli.ExitError
	}
	if c.opts.WebRevoke != "" {
		return c.revoke()
	}
	if c.opts.Popup != "" {
		if err := popupMode(ctx, c.opts.Popup, c.opts.PopupID, c.opts.PopupReply, stdin, c.prog.Stdout); err != nil {
			c.prog.Errorf("popup: %v", err)
			return cli.ExitError
		}
		return cli.ExitOK
	}
	// --where chooses what to notify about; every event still passes
	// through (the stages after, ag-keys, need theirs), through --jq.
	var err error
	if c.where, err = evfilter.New(ctx, cli.Filter{Where: c.opts.Where}); err != nil {
		c.prog.Errorf("%v", err)
		return cli.ExitError
	}
	if c.filter, err = evfilter.New(ctx, cli.Filter{JQ: c.opts.JQ, Raw: c.opts.Raw}); err != nil {
		c.prog.Errorf("%v", err)
		return cli.ExitError
	}
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
	if c.opts.Where != "" {
		cfg.Wanted = c.wanted
	}
	if !c.opts.NoQuiet {
		cfg.Looking = c.look.Looking
	}
	c.policy = notify.New(cfg)

	if c.opts.Web != "" {
		if err := c.startWeb(); err != nil {
			c.prog.Errorf("%v", err)
			return cli.ExitError
		}
		defer c.web.Close()
	}
	backends, err := c.backends(ctx)
	if err != nil {
		c.prog.Errorf("%v", err)
		return cli.ExitError
	}
	for _, b := range backends {
		w := &worker{b: b, jobs: newQueue(), results: c.results}
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

// refuse names an option given that means nothing with the others.
func (c *cmd) refuse() string {
	o := &c.opts
	backends := map[string]bool{}
	for _, b := range o.Backend {
		backends[b] = true
	}
	auto := len(o.Backend) == 0 || backends["auto"]
	switch {
	case o.Ntfy == "" && o.Meaningless("ntfy-token", "ntfy-click") != "":
		return o.Meaningless("ntfy-token", "ntfy-click") + " goes with --ntfy URL"
	case o.Given("timeout") && o.Timeout == 0:
		return "--timeout 0 would give every delivery no time at all"
	case !auto && !backends["osc"] && o.Meaningless("osc", "osc-tty") != "":
		return o.Meaningless("osc", "osc-tty") + " goes with --backend osc (or auto)"
	case !auto && !backends["tmux"] && o.Given("tmux-popup"):
		return "--tmux-popup goes with --backend tmux (or auto)"
	case o.Web == "" && o.Meaningless("web-url", "web-cert", "web-key", "web-proxy", "web-keys", "web-expire") != "":
		return o.Meaningless("web-url", "web-cert", "web-key", "web-proxy", "web-keys", "web-expire") + " goes with --web ADDR"
	}
	return ""
}

// input is one event read from stdin, with its line.
type input struct {
	line []byte
	at   cli.Place
	e    event.Event
}

func (c *cmd) read(r *cli.Reader, lines chan<- input, bad *int) {
	defer close(lines)
	for {
		var in input
		line, err := r.Next(&in.e)
		in.at = cli.Place{Name: "<stdin>", Line: r.Line()}
		*bad = r.Bad // read by loop only once lines is closed
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
	c.prog.Expecting(stdin, "pipe ag-fold's states in, as in ag-tail --follow | ag-fold | ag-notify")
	lines := make(chan input, 256)
	bad := 0
	go c.read(c.prog.NewReader(stdin, "<stdin>"), lines, &bad)

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
			w.jobs.close()
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
				if bad > 0 {
					code = cli.ExitError // lines that were not events (reported)
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
			c.at = in.at
			if c.web != nil {
				c.web.Observe(&in.e)
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
			if c.filter.Failed() > 0 || c.where.Failed() > 0 {
				code = cli.ExitError // an expression failed on an event (reported)
			}
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

// wanted is --where for the policy: may this state notify? An expression
// failing on it is reported where it came from, and it does not.
func (c *cmd) wanted(e *event.Event) bool {
	ok, err := c.where.Match(e)
	if err != nil {
		c.prog.Errorf("%s: %v", c.at, err)
	}
	return ok
}

// pass writes an input event on, as read (or through --jq).
func (c *cmd) pass(in *input) error {
	if !c.filter.Active() {
		return c.out.Raw(in.line)
	}
	err := c.filter.Write(c.out, &in.e)
	if evfilter.IsExprError(err) {
		c.prog.Errorf("%s: %v", in.at, err)
		return nil
	}
	return err
}

// act hands decisions to every backend's queue. A host with a full share
// of a queue (a backend stuck longer than its timeout, or a host flooding
// it) has the job dropped rather than hold up the stream; that is said
// once per backend, until its queue is empty again with a minute gone by
// since its last drop.
func (c *cmd) act(ds []notify.Decision) {
	for _, h := range c.policy.Limited() {
		c.prog.Errorf("%s: more than %d notifications at once, or %d a minute: the rest wait their turn (said once)", h, notify.HostBurst, notify.HostRate)
	}
	if len(ds) > 0 {
		c.look.forget()
	}
	for _, d := range ds {
		for _, w := range c.workers {
			if w.jobs.push(job{op: d.Op, note: d.Note, reason: d.Reason}) {
				continue
			}
			if _, said := c.busy[w.b.Name()]; !said {
				c.prog.Errorf("%s: busy: notifications dropped until it catches up (said once)", w.b.Name())
			}
			c.busy[w.b.Name()] = c.now()
		}
	}
}

func (c *cmd) report(r result) {
	for _, w := range c.workers {
		if last, said := c.busy[r.backend]; said && w.b.Name() == r.backend && w.jobs.empty() && c.now().Sub(last) > time.Minute {
			delete(c.busy, r.backend) // caught up: a next time is said again
		}
	}
	if r.err != nil {
		// One line per failure, not per delivery: a backend down (no
		// session bus) says so once, until it works again or fails
		// another way.
		if msg := r.err.Error(); c.failing[r.backend] != msg {
			c.failing[r.backend] = msg
			c.prog.Errorf("%s: %s: %v", r.backend, r.op, r.err)
		}
		return
	}
	if r.ref == "" {
		return // nothing was there to retract
	}
	delete(c.failing, r.backend) // it works again
	c.emit(notifyEvent(c.now(), r))
}

func (c *cmd) emit(e event.Event) {
	err := c.filter.Write(c.out, &e)
	switch {
	case evfilter.IsExprError(err):
		c.prog.Errorf("the %s event: %v", e.Kind, err)
	case err != nil && !errors.Is(err, cli.ErrClosed):
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
