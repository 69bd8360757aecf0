package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/proc"
	"github.com/agwatch/ag/filters/tmux"
)

// follow is --watch through tmux's control mode: nothing is asked of tmux
// or the process table on a timer. A control client per session (tmux.Attach,
// attached with ignore-size) hears every pane of it print (%output), and
// a subscription to each pane's process (refresh-client -B) hears a
// program start or end there; windows opened, closed or moved say the
// panes changed. Only what changed is read again: an agent's pane is
// captured once it printed (at most every readGap while it goes on
// printing, and once more after it stopped), another pane's processes
// are looked at once its foreground changed. A sweep every sweepEvery
// lists the panes again, in case a notification was missed, and reads the
// process table only if a pane's processes look different.
//
// Why ag-detect runs it: ag-detect already owns the panes and the process
// table, and runs where the agents' tmux server is; the login pipeline's
// other stages read files and events, and ag-detect --pane (a prompt
// segment) must stay a read of one file.
func (s *scanner) follow(ctx context.Context, srv *tmux.Client) (int, ending) {
	f := &follower{s: s, srv: srv, notes: tmux.NewNotes(), clients: map[string]*tmux.Control{},
		up: map[string]sighting{}, panes: map[string]*watched{}}
	defer f.close()
	defer func() { s.tm = srv }()
	if err := f.sync(ctx); err != nil {
		if g := (gone{}); errors.As(err, &g) && g.sure {
			return cli.ExitOK, serverWent // gone meanwhile: wait for the next
		}
		return cli.ExitOK, notAttached
	}
	s.tm = f
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	err := f.rescan(ctx)
	for {
		if err != nil {
			var g gone
			if !errors.As(err, &g) {
				return f.fail(err), endedFor // writing failed
			}
			// A server that does not answer for a moment is not gone:
			// what was seen stands, and tmux is asked again shortly. One
			// that no longer listens, or has no session left, is.
			if f.failing.IsZero() {
				f.failing = time.Now()
			}
			if g.sure || time.Since(f.failing) >= watchGrace {
				return f.down()
			}
			f.retry = time.Now().Add(100 * time.Millisecond)
			err = nil
		}
		timer.Reset(max(f.next(), 0))
		select {
		case <-ctx.Done():
			return cli.ExitInterrupted, endedFor
		case <-f.notes.Wake():
			err = f.heard(ctx, f.notes.Take())
		case <-timer.C:
		}
		if err == nil {
			err = f.work(ctx)
		}
	}
}

// ending is how a follow ended.
type ending int

const (
	endedFor    ending = iota // a signal, or writing failed: its code says
	serverWent                // the server went; its agents were said gone
	notAttached               // sessions listed, none could be followed
)

// gone wraps what tmux failed to answer: the server may be gone, and is
// when sure (nothing listens on its socket, or it has no session left).
type gone struct {
	error
	sure bool
}

// The follower's timing.
const (
	settle     = 20 * time.Millisecond  // after a pane's first output: let the frame finish
	readGap    = 250 * time.Millisecond // between two captures of a pane that keeps printing …
	maxGap     = time.Second            // … doubled while what it shows means the same, up to this
	procGap    = 2 * time.Second        // between two looks at another pane's processes
	procAgain  = 10 * time.Second       // … when its foreground is the same job as before
	layoutWait = 50 * time.Millisecond  // after windows changed, before listing the panes
	sweepEvery = 30 * time.Second
)

type follower struct {
	s       *scanner
	srv     *tmux.Client
	notes   *tmux.Notes
	clients map[string]*tmux.Control // by session id
	up      map[string]sighting      // the agents, by pane
	panes   map[string]*watched      // every pane, by pane
	scanDue time.Time                // a full scan is due then (zero: none)
	swept   time.Time
	failing time.Time // since when tmux has not answered (zero: it does)
	retry   time.Time // when to ask it again
}

// watched is one pane's timing.
type watched struct {
	pid   int           // its first process
	out   time.Time     // it last printed
	read  time.Time     // it was last read (captured, or its processes looked at)
	due   time.Time     // it is to be read then (zero: not)
	alive time.Time     // an agent's pane: its process last found alive
	gap   time.Duration // an agent's pane: the least time between two reads now
	shape string        // another pane: its processes' shape at the last look ("" unknown)
	sub   string        // its process and program, as the subscription last said
}

// sync attaches a control client to every session that has none and drops
// those of sessions gone.
func (f *follower) sync(ctx context.Context) error {
	out, err := f.srv.Run(ctx, "list-sessions", "-F", "#{session_id}")
	if err != nil {
		sure := noServer(err)
		var te *tmux.Error
		if errors.As(err, &te) && strings.TrimSpace(te.Stderr) != "" {
			err = errors.New(strings.TrimSpace(te.Stderr))
		}
		return gone{errors.New("cannot reach the tmux server: " + err.Error()), sure}
	}
	live := strings.Fields(string(out))
	for id, ct := range f.clients {
		ended := false
		select {
		case <-ct.Done():
			ended = true // its session closed, or its server
		default:
		}
		if ended || !slices.Contains(live, id) {
			ct.Close()
			delete(f.clients, id)
		}
	}
	for _, id := range live {
		if f.clients[id] != nil {
			continue
		}
		// Attach returns once attached: a command sent sooner could run
		// on a client with no session yet and fail ("no current
		// client"), which is no tmux without control mode.
		ct, err := f.srv.Attach(ctx, id, f.notes)
		if err != nil {
			continue // the session went meanwhile, or the server: asked below
		}
		// Attached again (a client that ended, or one that did not
		// answer): what the agents' panes printed meanwhile was heard by
		// nobody, and a prompt drawn then prints nothing more. Read them.
		for pane := range f.up {
			if w := f.panes[pane]; w != nil {
				w.due = time.Now()
			}
		}
		// The subscription says when a pane's program changes without a
		// word printed.
		if _, err := ct.Run(ctx, "refresh-client -B 'ag:%*:#{pane_pid} #{pane_current_command}'"); err != nil {
			ct.Close()
			continue
		}
		f.clients[id] = ct
	}
	if len(f.clients) == 0 {
		if len(live) == 0 {
			return gone{errors.New("no tmux session left"), true}
		}
		// Sessions listed, none attached: the server is ending, or busy.
		return gone{errors.New("cannot attach to a tmux session"), false}
	}
	return nil
}

func (f *follower) close() {
	for _, ct := range f.clients {
		ct.Close()
	}
}

// cmd is a live control client to ask through (any will do: pane ids are
// the server's).
func (f *follower) cmd() (*tmux.Control, error) {
	ids := make([]string, 0, len(f.clients))
	for id, ct := range f.clients {
		select {
		case <-ct.Done():
		default:
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, tmux.ErrClosed
	}
	slices.Sort(ids)
	return f.clients[ids[0]], nil
}

// answerWithin bounds one command through a control client: tmux answers
// in milliseconds. A client that does not answer is closed and the
// follower attaches again at once (sync), reading every agent's screen:
// a reader waiting on it for good would hear no prompt again.
const answerWithin = 5 * time.Second

// ask runs do through a control client, within answerWithin.
func ask[T any](ctx context.Context, f *follower, do func(context.Context, *tmux.Control) (T, error)) (T, error) {
	ct, err := f.cmd()
	if err != nil {
		var zero T
		return zero, err
	}
	actx, cancel := context.WithTimeout(ctx, answerWithin)
	defer cancel()
	v, err := do(actx, ct)
	if err != nil && ctx.Err() == nil && actx.Err() != nil {
		ct.Close()
		f.retry = time.Now()
	}
	return v, err
}

// The scanner's paneIO, through a control client.
func (f *follower) ListPanes(ctx context.Context, format string) ([]string, error) {
	return ask(ctx, f, func(ctx context.Context, ct *tmux.Control) ([]string, error) { return ct.ListPanes(ctx, format) })
}

func (f *follower) Capture(ctx context.Context, target string, history int) (string, error) {
	return ask(ctx, f, func(ctx context.Context, ct *tmux.Control) (string, error) { return ct.Capture(ctx, target, history) })
}

func (f *follower) Display(ctx context.Context, target, format string) (string, error) {
	return ask(ctx, f, func(ctx context.Context, ct *tmux.Control) (string, error) { return ct.Display(ctx, target, format) })
}

// heard takes what tmux said.
func (f *follower) heard(ctx context.Context, notes []tmux.Note) error {
	now := time.Now()
	for _, n := range notes {
		switch n.Name {
		case "output":
			if w := f.panes[n.Pane()]; w != nil {
				w.out = n.At
				if w.due.IsZero() {
					gap := max(w.gap, readGap)
					if _, agent := f.up[n.Pane()]; !agent {
						gap = procGap
					}
					w.due = latest(n.At.Add(settle), w.read.Add(gap))
					f.notes.Hold(n.Pane(), true) // it is read then anyway
				}
			} else {
				f.scanSoon(now) // a pane not listed yet
			}
		case "subscription-changed":
			// tmux reports each pane's value a second after the
			// subscription starts, then each change.
			w := f.panes[n.Pane()]
			switch {
			case w == nil:
				f.scanSoon(now)
			case w.sub == "":
				// The first report: an agent's pane is being read anyway;
				// another pane's program may have changed since it was
				// last listed (an exec prints nothing), so look once.
				w.sub = n.Value
				if _, agent := f.up[n.Pane()]; !agent {
					w.shape, w.due = "", now
				}
			case w.sub != n.Value:
				w.sub = n.Value
				if _, agent := f.up[n.Pane()]; agent {
					f.scanSoon(now) // the agent may have ended
				} else {
					w.shape, w.due = "", now // another program: look now
				}
			}
		case "window-add", "window-close", "unlinked-window-add", "unlinked-window-close",
			"layout-change", "window-pane-changed", "session-window-changed":
			f.scanSoon(now)
		case "sessions-changed", "exit":
			if err := f.sync(ctx); err != nil {
				return err
			}
			f.scanSoon(now)
		}
	}
	return nil
}

func (f *follower) scanSoon(now time.Time) {
	if f.scanDue.IsZero() {
		f.scanDue = now.Add(layoutWait)
	}
}

// next is how long until something is due.
func (f *follower) next() time.Duration {
	if !f.retry.IsZero() {
		return time.Until(f.retry)
	}
	due := f.swept.Add(sweepEvery)
	if !f.scanDue.IsZero() && f.scanDue.Before(due) {
		due = f.scanDue
	}
	for _, w := range f.panes {
		if !w.due.IsZero() && w.due.Before(due) {
			due = w.due
		}
	}
	return time.Until(due)
}

// work does what is due: a full scan, then each pane's read.
func (f *follower) work(ctx context.Context) error {
	now := time.Now()
	if !f.retry.IsZero() {
		if now.Before(f.retry) {
			return nil
		}
		f.retry = time.Time{}
		if err := f.sync(ctx); err != nil {
			return err
		}
		if err := f.rescan(ctx); err != nil {
			return err
		}
		f.failing = time.Time{}
		return nil
	}
	scan := !f.scanDue.IsZero() && !now.Before(f.scanDue)
	if !scan && !now.Before(f.swept.Add(sweepEvery)) {
		var err error
		if scan, err = f.sweep(ctx); err != nil {
			return err
		}
	}
	if scan {
		if err := f.rescan(ctx); err != nil {
			return err
		}
	}
	// Output held back (Notes.Hold) since the last wake: when it came.
	if err := f.heard(ctx, f.notes.Take()); err != nil {
		return err
	}
	var due []string
	for pane, w := range f.panes {
		if !w.due.IsZero() && !now.Before(w.due) {
			due = append(due, pane)
		}
	}
	slices.SortFunc(due, comparePanes)
	var rescan bool
	for _, pane := range due {
		w := f.panes[pane]
		started := time.Now()
		w.due = time.Time{}
		f.notes.Hold(pane, false)
		if sg, agent := f.up[pane]; agent {
			// The agent's process still the one seen (at most every
			// procGap: a subscription and the sweep say so too).
			if started.Sub(w.alive) >= procGap {
				if !alive(sg) {
					rescan = true
					continue
				}
				w.alive = started
			}
			before := f.s.screenKey(pane)
			// Dated by this read, not by the window_activity of the
			// last rescan (paneEvent): the same screen coming back (a
			// second turn's working, idle again) is a new event, not
			// the first one's id again, which ag-fold would drop.
			sg.activity = 0
			if f.s.d.opts.Panes {
				if err := f.s.classify(ctx, sg, true); err != nil {
					return err
				}
			}
			// A pane that keeps printing what means the same (a
			// spinner) is read ever less often, down to every maxGap;
			// a change, or a pause in its output, brings it back.
			switch {
			case f.s.screenKey(pane) != before || w.gap == 0 || started.Sub(w.read) > 2*maxGap:
				w.gap = readGap
			case w.gap < maxGap:
				w.gap = min(2*w.gap, maxGap)
			}
			w.read = started
			if w.out.After(started) { // it printed while being read: once more
				w.due = latest(w.out.Add(settle), started.Add(w.gap))
				f.notes.Hold(pane, true)
			}
			continue
		}
		// Another pane: a look at its processes' shape (its foreground
		// group, the children of its first process and of that group's
		// leader) decides whether to look for an agent among them.
		if fp := shape(w.pid); fp == "" || fp != w.shape || started.Sub(w.read) >= procAgain {
			rescan = rescan || fp != w.shape || fp == ""
			w.shape, w.read = fp, started
		}
		if w.out.After(started) {
			w.due = latest(w.out.Add(settle), started.Add(procGap))
			f.notes.Hold(pane, true)
		}
	}
	if rescan {
		return f.rescan(ctx)
	}
	return nil
}

// rescan lists every pane and finds the agents in them (scanner.scan):
// proc events for what changed, a read of each new agent's screen.
func (f *follower) rescan(ctx context.Context) error {
	seen, err := f.s.scan(ctx)
	if err != nil {
		// The client asked may have ended with its session: ask another,
		// or learn that the server is gone.
		if serr := f.sync(ctx); serr != nil {
			return serr
		}
		if seen, err = f.s.scan(ctx); err != nil {
			return gone{error: err}
		}
	}
	// Asked before anything is written or kept: a rescan that fails
	// leaves what was known as it was, to be done again whole.
	pids, err := f.panePIDs(ctx)
	if err != nil {
		return gone{error: err}
	}
	now := time.Now()
	f.scanDue, f.swept = time.Time{}, now
	cur := map[string]sighting{}
	for _, sg := range seen {
		// window_activity dates nothing here: each read is heard of, and
		// its events take the read's time for their ids (paneEvent).
		sg.activity = 0
		cur[sg.pane] = sg
	}
	if f.s.d.opts.All {
		if err := f.s.diff(f.up, cur); err != nil {
			return err
		}
	}
	for pane := range f.panes {
		if _, ok := pids[pane]; !ok {
			delete(f.panes, pane)
			f.notes.Hold(pane, false)
		}
	}
	for pane, pid := range pids {
		w := f.panes[pane]
		if w == nil || w.pid != pid {
			w = &watched{pid: pid}
			f.panes[pane] = w
		}
		w.shape = shape(pid)
	}
	for pane := range f.s.screens {
		if _, ok := cur[pane]; !ok {
			delete(f.s.screens, pane)
		}
	}
	for pane, sg := range cur {
		if old, ok := f.up[pane]; (!ok || !old.same(sg)) && f.panes[pane] != nil {
			f.panes[pane].due = now // a new agent: read its screen now
		}
	}
	f.up = cur
	return nil
}

// sweep looks for what a notification may have missed, cheaply: the panes
// listed again (through the control client), each agent's process still
// the one seen, each other pane's processes still of the shape they had.
// Only when something differs is the process table read (rescan: 10 ms
// of CPU here, which every 30 s was most of what an idle --watch cost).
func (f *follower) sweep(ctx context.Context) (bool, error) {
	f.swept = time.Now()
	pids, err := f.panePIDs(ctx)
	if err != nil {
		return false, gone{error: err}
	}
	if len(pids) != len(f.panes) {
		return true, nil
	}
	for pane, pid := range pids {
		w := f.panes[pane]
		if w == nil || w.pid != pid {
			return true, nil
		}
		if sg, agent := f.up[pane]; agent {
			if !alive(sg) {
				return true, nil
			}
		} else if shape(pid) != w.shape {
			return true, nil
		}
	}
	return false, nil
}

// panePIDs is every pane's first process.
func (f *follower) panePIDs(ctx context.Context) (map[string]int, error) {
	lines, err := f.ListPanes(ctx, "#{pane_id} #{pane_pid}")
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, l := range lines {
		pane, pid, ok := strings.Cut(l, " ")
		if n, err := strconv.Atoi(pid); ok && err == nil {
			out[pane] = n
		}
	}
	return out, nil
}

// fail ends the follow: writing failed (quietly when the reader went).
func (f *follower) fail(err error) int {
	if cli.IsClosedPipe(err) {
		return cli.ExitOK
	}
	f.s.d.prog.Errorf("%v", err)
	return cli.ExitError
}

// down is the server gone: its agents are gone from view (proc.down).
func (f *follower) down() (int, ending) {
	if f.s.d.opts.All {
		for _, pane := range sortedKeys(f.up) {
			if err := f.s.emit(f.s.procEvent(event.ProcDown, f.up[pane], f.s.d.now())); err != nil {
				return f.fail(err), endedFor
			}
		}
	}
	return cli.ExitOK, serverWent
}

// shape is what a pane's processes look like, cheaply: the terminal's
// foreground group and the children of the pane's first process and of
// that group's leader. Unchanged, no agent can have started there since
// the last look; "" when it cannot be read (then look).
func shape(pid int) string {
	st, err := proc.Stat(pid)
	if err != nil {
		return ""
	}
	kids, ok := proc.Children(pid)
	if !ok {
		return ""
	}
	fp := strconv.Itoa(st.TPGID) + ":" + fmt.Sprint(kids)
	if st.TPGID > 0 && st.TPGID != pid {
		more, ok := proc.Children(st.TPGID)
		if !ok {
			return ""
		}
		fp += ":" + fmt.Sprint(more)
	}
	return fp
}

// alive reports whether the agent process is still the one seen.
func alive(sg sighting) bool {
	st, err := proc.Stat(sg.found.PID)
	return err == nil && !st.Zombie && (sg.start == 0 || st.Start == sg.start)
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func comparePanes(a, b string) int {
	if paneLess(a, b) {
		return -1
	}
	if paneLess(b, a) {
		return 1
	}
	return 0
}
