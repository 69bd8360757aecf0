package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/tmux"
	"github.com/agwatch/ag/filters/tmuxopts"
	"github.com/agwatch/ag/providers"
)

// tmuxOptions are the --tmux options; options embeds them.
type tmuxOptions struct {
	Push bool `long:"tmux" description:"keep tmux options (@ag_status, …) in step" man:"on each session's pane and window and on the server, whenever a state changes; with --snapshot, push the states once (see TMUX)"`
	cli.Tmux
}

const (
	// listAge: the pane list (pane → window, tty) is refreshed on a
	// change when it is older than this, or names no pane a session is in.
	listAge = 30 * time.Second
	// chunk bounds one tmux invocation: a replay can change hundreds.
	chunk = 200
	// How long one tmux call may take, and the retry backoff when the
	// server is down or tmux failed.
	tmuxTimeout = 5 * time.Second
	retryMin    = time.Second
	retryMax    = 30 * time.Second
)

// Every tmux call here has -u: under a service manager the locale is often
// not UTF-8, and tmux would then store "⏳" as "__" and print a tab as "_".
//
// listFormat is one pane per line: the server's pid (a new server reuses
// pane ids), pane, window, tty, and whether an earlier run left options.
const listFormat = "#{pid}\t#{pane_id}\t#{window_id}\t#{pane_tty}\t#{@ag_agent}\t#{@ag_window_status}"

// pusher keeps tmux user options in step with the states. The fold hands
// it states (update, never blocking on tmux); its own goroutine runs one
// tmux command per change, with only the options whose value changed. A
// tmux error is reported once and retried later; it never stops the fold.
type pusher struct {
	tm     *tmux.Client
	self   hostname.Self
	errorf func(format string, a ...any)
	now    func() time.Time

	cancel context.CancelFunc

	mu    sync.Mutex
	model *tmuxopts.Model
	dirty bool
	wake  chan struct{}
	done  chan struct{}

	// Owned by the loop (or by sync's caller when there is no loop).
	panes   map[string]tmuxopts.Pane
	missing map[tmuxopts.Pane]bool // panes (and ttys) sessions name that the last list lacked
	server  string                 // pid of the server the applied options are in
	listed  time.Time
	applied tmuxopts.Set
	lastErr string
	backoff time.Duration
	calls   int // tmux invocations, for tests
}

func newPusher(c *tmux.Client, self hostname.Self, errorf func(string, ...any), now func() time.Time) *pusher {
	return &pusher{tm: c, self: self, errorf: errorf, now: now, model: newModel(self),
		wake: make(chan struct{}, 1), done: make(chan struct{}), applied: tmuxopts.Set{}}
}

// startTmux starts pushing states into tmux for follow; nil without --tmux
// (a nil pusher takes every call and does nothing).
func (f *folder) startTmux(ctx context.Context, o tmuxOptions) *pusher {
	if !o.Push {
		return nil
	}
	socket, name := o.Server()
	p := newPusher(&tmux.Client{Socket: socket, Name: name}, hostname.Of(f.env), f.prog.Errorf, f.now)
	// A first sync even before any state: options an earlier run left
	// (one killed before it could clear them) go at once.
	p.dirty = true
	p.wake <- struct{}{}
	p.start(ctx)
	return p
}

// update takes the states the fold just wrote; cheap, never blocks.
func (p *pusher) update(states []event.Event) {
	if p == nil || len(states) == 0 {
		return
	}
	p.mu.Lock()
	for i := range states {
		p.model.Update(&states[i])
	}
	p.dirty = true
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// updateOutputs takes the states among a batch of outputs (input events
// passed through carry their raw line; states do not).
func (p *pusher) updateOutputs(outs []output) []output {
	if p == nil {
		return outs
	}
	var n int
	p.mu.Lock()
	for _, o := range outs {
		if o.raw == nil && o.ev != nil && o.ev.Kind == event.State {
			p.model.Update(o.ev)
			n++
		}
	}
	if n > 0 {
		p.dirty = true
	}
	p.mu.Unlock()
	if n > 0 {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	return outs
}

// start runs the loop until ctx ends or stop is called.
func (p *pusher) start(ctx context.Context) {
	ctx, p.cancel = context.WithCancel(ctx)
	go func() {
		defer close(p.done)
		retry := time.NewTimer(time.Hour)
		retry.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-p.wake:
			case <-retry.C:
			}
			if !p.sync(ctx) {
				retry.Reset(p.backoff)
			}
		}
	}()
}

// stop ends the loop; with clear, every option this run set is removed
// (the pipeline is going away: what tmux shows would go stale).
func (p *pusher) stop(ctx context.Context, clear bool) {
	if p == nil {
		return
	}
	p.cancel()
	<-p.done
	if !clear {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	p.mu.Lock()
	p.model = newModel(p.self)
	p.mu.Unlock()
	if p.panes == nil {
		// A push cut short (stop cancels the one under way) left what
		// tmux has unknown: the list finds this run's options there.
		if err := p.list(ctx); err != nil {
			if !errors.Is(err, tmux.ErrNoServer) {
				p.fail(err)
			}
			return
		}
	}
	if len(p.applied) > 0 {
		if err := p.push(ctx, tmuxopts.Set{}); err != nil {
			p.fail(err)
		}
	}
}

// sync brings tmux in line with the model; false means try again later.
func (p *pusher) sync(ctx context.Context) bool {
	p.mu.Lock()
	dirty, need := p.dirty, p.model.Panes()
	p.dirty = false
	p.mu.Unlock()
	if !dirty && p.lastErr == "" {
		return true
	}
	err := p.attempt(ctx, need)
	if ctx.Err() != nil {
		return false // stopping: stop's own clear says what tmux did
	}
	if err != nil && !errors.Is(err, tmux.ErrNoServer) {
		// One more go against a fresh pane list: a pane may have closed
		// between the list and the set.
		err = p.attempt(ctx, need)
	}
	if err == nil {
		p.backoff, p.lastErr = 0, ""
		return true
	}
	p.fail(err)
	p.backoff = min(max(2*p.backoff, retryMin), retryMax)
	return false
}

func (p *pusher) attempt(ctx context.Context, need []tmuxopts.Pane) error {
	if p.panes == nil || p.now().Sub(p.listed) > listAge || !p.knows(need) {
		if err := p.list(ctx); err != nil {
			return err
		}
		// A session in a pane of another server (or of one long gone)
		// must not make every change list the panes again: it is looked
		// for again with the next list, at most listAge from now.
		p.missing = map[tmuxopts.Pane]bool{}
		for _, w := range need {
			if !p.has(w) {
				p.missing[w] = true
			}
		}
	}
	p.mu.Lock()
	desired := p.model.Desired(p.panes)
	p.mu.Unlock()
	return p.push(ctx, desired)
}

// push sends the difference between what tmux has and desired.
func (p *pusher) push(ctx context.Context, desired tmuxopts.Set) error {
	cmds := tmuxopts.Diff(p.applied, desired)
	for len(cmds) > 0 {
		n := min(len(cmds), chunk)
		p.calls++
		cctx, cancel := context.WithTimeout(ctx, tmuxTimeout)
		_, err := p.tm.Run(cctx, append([]string{"-u"}, tmuxopts.Join(cmds[:n])...)...)
		cancel()
		if err != nil {
			// What tmux now has is unknown: relist and start over.
			p.panes, p.server = nil, ""
			p.applied = tmuxopts.Set{}
			return err
		}
		cmds = cmds[n:]
	}
	return nil
}

// knows says whether the last list can place every session: its pane is
// there with the session's tty (respawn-pane gives a pane a new one), or
// was not at the last list.
func (p *pusher) knows(panes []tmuxopts.Pane) bool {
	for _, w := range panes {
		if !p.has(w) && !p.missing[w] {
			return false
		}
	}
	return true
}

func (p *pusher) has(w tmuxopts.Pane) bool {
	got, ok := p.panes[w.ID]
	return ok && (w.TTY == "" || got.TTY == "" || w.TTY == got.TTY)
}

// list reads the server's panes. A new server (first contact, or tmux
// restarted) starts from what an earlier run may have left: options seen
// there are marked unknown, so they are cleared unless a session sets them.
func (p *pusher) list(ctx context.Context) error {
	p.calls++
	cctx, cancel := context.WithTimeout(ctx, tmuxTimeout)
	out, err := p.tm.Run(cctx, "-u", "list-panes", "-a", "-F", listFormat)
	cancel()
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if err != nil {
		p.panes, p.server = nil, ""
		p.applied = tmuxopts.Set{}
		return err
	}
	panes := make(map[string]tmuxopts.Pane, len(lines))
	windows := map[string]bool{}
	server := ""
	var leftPanes, leftWindows []string
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) < 6 {
			continue
		}
		server = f[0]
		panes[f[1]] = tmuxopts.Pane{ID: f[1], Window: f[2], TTY: f[3]}
		windows[f[2]] = true
		if f[4] != "" {
			leftPanes = append(leftPanes, f[1])
		}
		if f[5] != "" {
			leftWindows = append(leftWindows, f[2])
		}
	}
	if server != p.server {
		p.applied = tmuxopts.Set{}
		for _, id := range leftPanes {
			tmuxopts.Stale(p.applied, tmuxopts.Target{Scope: tmuxopts.ScopePane, ID: id})
		}
		for _, id := range leftWindows {
			tmuxopts.Stale(p.applied, tmuxopts.Target{Scope: tmuxopts.ScopeWindow, ID: id})
		}
		tmuxopts.Stale(p.applied, tmuxopts.Target{Scope: tmuxopts.ScopeGlobal})
	}
	// Panes and windows that closed took their options with them.
	for t := range p.applied {
		if (t.Scope == tmuxopts.ScopePane && panes[t.ID].ID == "") || (t.Scope == tmuxopts.ScopeWindow && !windows[t.ID]) {
			delete(p.applied, t)
		}
	}
	p.panes, p.server, p.listed = panes, server, p.now()
	return nil
}

// fail reports a tmux error once (until it changes or tmux works again).
func (p *pusher) fail(err error) {
	msg := err.Error()
	var te *tmux.Error
	if errors.As(err, &te) && strings.TrimSpace(te.Stderr) != "" {
		msg = strings.TrimSpace(te.Stderr) // not the whole batch of commands
	}
	if errors.Is(err, tmux.ErrNoServer) {
		msg = "no tmux server to push options to"
		if p.cancel != nil { // following: the loop tries again
			msg += " (will retry)"
		}
	}
	if msg != p.lastErr {
		p.errorf("tmux: %s", msg)
		p.lastErr = msg
	}
}

// newModel is the options model, knowing which agents show many sessions
// in one pane.
func newModel(self hostname.Self) *tmuxopts.Model {
	m := tmuxopts.NewModel(self)
	m.Many = providers.ManySessionsPerProcess
	return m
}
