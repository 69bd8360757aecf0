package main

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/tmux"
)

// --watch is a member of the login pipeline: it must outlive tmux. A
// stage that ends has the whole pipeline restarted, so --watch never
// ends on tmux's account: with no tmux server it waits for one, without
// polling (the socket's folder is watched: a server starts by making its
// socket); when its server goes, its agents go from view (proc.down) and
// it waits for the next; with no tmux at all it says so once and does
// nothing. It ends on a signal, when its output's reader goes, or when
// writing fails.

// The waiting's timing.
const (
	// lookEvery is how often a waiting --watch looks at the socket anyway,
	// in case a notification was missed (kqueue can miss a socket made
	// anew): a connect, and a tmux call only when something listens.
	lookEvery = 30 * time.Second
	// settleAgain is how long after a hint the server is asked again while
	// it has no session yet (tmux makes the socket, then the session).
	settleAgain = 3 * time.Second
	// retryFirst, doubled up to retryMost: how long to wait before
	// following a server again that could not be followed a moment ago.
	retryFirst = 500 * time.Millisecond
	retryMost  = 30 * time.Second
)

// watchServers is --watch: every server given followed (or watched, with
// a tmux before 3.2), each on its own, and stdin passed through. It ends
// when parent does, or when writing fails.
func (d *detector) watchServers(parent context.Context, stdin io.Reader) int {
	ctx, stop := context.WithCancel(parent)
	defer stop()
	var mu sync.Mutex
	code := -1
	end := func(c int) { // the first end that is not parent's says how
		mu.Lock()
		if code < 0 && parent.Err() == nil {
			code = c
		}
		mu.Unlock()
		stop()
	}
	d.passThrough(ctx, stdin, end)
	d.watchEach(ctx, end)
	<-ctx.Done()
	mu.Lock()
	defer mu.Unlock()
	if code < 0 {
		return cli.ExitInterrupted
	}
	return code
}

// watchEach follows every server given until ctx ends.
func (d *detector) watchEach(ctx context.Context, end func(int)) {
	cs := d.opts.clients()
	v, err := cs[0].Version(ctx)
	if err != nil {
		// No tmux at all: nothing to follow, nothing to cost. Events on
		// stdin still flow.
		if errors.Is(err, exec.ErrNotFound) {
			err = errors.New("no tmux on $PATH")
		}
		d.prog.Errorf("%v: no screens to follow (restart ag-detect once tmux is there)", err)
		return
	}
	follows := tmux.Follows(v)
	if !follows {
		d.prog.Errorf("tmux %s cannot be followed (control mode needs tmux 3.2 or later): looking every %v instead", v, d.opts.Interval)
	}
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := newScanner(d)
			s.tm = c
			if code := s.keep(ctx, c, follows); ctx.Err() == nil {
				end(code) // writing failed, or the reader went
			}
		}()
	}
	wg.Wait()
}

// keep follows one server for as long as it runs, and the next one
// started on its socket, and so on.
func (s *scanner) keep(ctx context.Context, c *tmux.Client, follows bool) int {
	path := c.SocketPath()
	retry := retryFirst
	for waited := false; ; waited = true {
		if !s.waitServer(ctx, c, path, waited) {
			return cli.ExitInterrupted
		}
		var code int
		how := endedFor
		if follows {
			code, how = s.follow(ctx, c)
		} else {
			var gone bool
			if code, gone = s.watch(ctx); gone {
				how = serverWent
			}
		}
		if how == endedFor {
			return code
		}
		clear(s.screens)
		if how == serverWent {
			retry = retryFirst
			continue
		}
		// Sessions listed that none could follow: not again at once.
		if retry == 4*retryFirst {
			s.d.prog.Errorf("cannot follow the tmux server on %s: trying again, less and less often", path)
		}
		if !sleep(ctx, retry) {
			return cli.ExitInterrupted
		}
		retry = min(2*retry, retryMost)
	}
}

// waitServer returns once the server at path runs a session (true), or
// when ctx ends (false). It asks tmux at once, then only when the
// socket's folder changes, and every lookEvery when something listens
// on the socket. again says a server was followed (or waited for)
// before: the message says it went.
func (s *scanner) waitServer(ctx context.Context, c *tmux.Client, path string, again bool) bool {
	if s.sessions(ctx, c) {
		return true
	}
	if again {
		s.d.prog.Errorf("no tmux session on %s any more: waiting for one", path)
	} else {
		s.d.prog.Errorf("no tmux server with a session on %s: waiting for one", path)
	}
	w, err := tmux.WatchSocket(path)
	var hint <-chan struct{}
	if err != nil {
		s.d.prog.Errorf("cannot watch for a tmux server on %s (%v): looking every %v", path, err, lookEvery)
	} else {
		defer w.Close()
		hint = w.Hint()
	}
	look := time.NewTicker(lookEvery)
	defer look.Stop()
	// After a hint the server may not have its session yet (tmux makes the
	// socket first): asked again 25 ms later, then twice as long each
	// time, up to settleAgain after the last hint.
	soon := time.NewTimer(time.Hour)
	soon.Stop()
	defer soon.Stop()
	var step time.Duration
	var until time.Time
	for {
		select {
		case <-ctx.Done():
			return false
		case <-hint:
			until, step = time.Now().Add(settleAgain), 25*time.Millisecond
		case <-soon.C:
			step *= 2
		case <-look.C:
			if !tmux.Listening(path) {
				continue
			}
		}
		if s.sessions(ctx, c) {
			s.d.prog.Errorf("following the tmux server on %s", path)
			return true
		}
		if time.Now().Before(until) {
			soon.Reset(step)
		}
	}
}

// sessions reports whether the server answers with a session.
func (s *scanner) sessions(ctx context.Context, c *tmux.Client) bool {
	out, err := c.Run(ctx, "list-sessions", "-F", "#{session_id}")
	return err == nil && strings.TrimSpace(string(out)) != ""
}

// noServer reports whether err says no server listens (rather than one
// that did not answer in time).
func noServer(err error) bool { return errors.Is(err, tmux.ErrNoServer) }

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
