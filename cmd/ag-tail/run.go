package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/cmd/internal/evfilter"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/spool"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

type options struct {
	Once   bool   `long:"once" description:"read what is there, then exit (the default)"`
	Follow bool   `long:"follow" short:"f" description:"read what is there, then follow as agents write"`
	Replay bool   `long:"replay" description:"with --follow: read the whole history again, not only what came since the last run" man:"a restarted --follow otherwise goes on from its cursor (doc/restarts.md)"`
	Since  string `long:"since" value-name:"DURATION" description:"only events newer: 90s, 15m, 24h, 7d" man:"with --follow, files not written since are followed from their end"`
	Agent  string `long:"agent" value-name:"NAME" description:"only this agent's (claude, codex, …)"`
	cli.Filter
	cli.Common
}

// tail is one run of ag-tail.
type tail struct {
	prog   cli.Program
	opts   options
	env    paths.Env
	now    func() time.Time
	cutoff time.Time // zero: no --since

	provs      []provider.Provider
	storeEvery time.Duration // the stores' slow timer (storePoll)
	// cursorEvery is how often, at most, the cursor is written (tests
	// make it short).
	cursorEvery time.Duration
	asKilled    bool // tests: at the end write nothing more, as kill -9 would
	buf         *lineBuffer
	outs        chan *out    // free outs (getOut, putOut)
	noMap       bool         // read every file with read(2) (the tests compare the two)
	stop        *atomic.Bool // set while a replay runs: tells its readers to end

	// Meters counted, across files (ids hashed): a response copied into
	// another file counts once. newMeters are those added since the
	// cursor last saved them.
	meters     map[uint64]struct{}
	newMeters  []uint64
	saveMeters bool // a cursor keeps them
	// skip are the events (state.Key, how many times) ag-fold folded
	// after the mark a restart resumes from: left out while it replays.
	skip map[uint64]int
	// noSpool: the spool is refused (spool.Check) and not read; notOurs:
	// so is the whole state folder (paths.CheckDir), the cursor too.
	noSpool, notOurs bool
	wrote            bool  // output since the cursor's last checkpoint
	err              error // first write error; ends the run

	ctx      context.Context // the run's: a signal stops a --where/--jq midway
	reported int             // problems said on stderr: --once then exits 2
	failed   atomic.Int64    // events a --where/--jq failed on (the sinks')
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newTail(stdout, stderr, paths.OS(), time.Now).main(ctx, args)
}

func newTail(stdout, stderr io.Writer, env paths.Env, now func() time.Time) *tail {
	t := &tail{
		prog: func() cli.Program {
			p := program()
			p.Stdout, p.Stderr = stdout, stderr
			return p
		}(),
		env: env, now: now, provs: providers.All(), storeEvery: storePoll, cursorEvery: cursorEvery, meters: map[uint64]struct{}{},
	}
	t.buf = &lineBuffer{w: stdout}
	t.outs = make(chan *out, aheadBytes/outMax+aheadUnits)
	return t
}

func (t *tail) main(ctx context.Context, args []string) int {
	rest, done, code := t.prog.Parse(&t.opts, args)
	if done {
		return code
	}
	if len(rest) > 0 {
		t.prog.Errorf("unexpected argument %q (see ag-tail --help)", rest[0])
		return cli.ExitError
	}
	if t.opts.Once && t.opts.Follow {
		t.prog.Errorf("--once and --follow exclude each other")
		return cli.ExitError
	}
	if t.opts.Since != "" {
		d, err := parseSince(t.opts.Since)
		if err != nil {
			t.prog.Errorf("--since: %v", err)
			return cli.ExitError
		}
		t.cutoff = t.now().Add(-d)
	}
	if t.opts.Agent != "" && !slices.ContainsFunc(t.provs, func(p provider.Provider) bool { return p.ID() == t.opts.Agent }) {
		t.prog.Errorf("--agent: unknown agent %q (one of: %s)", t.opts.Agent, providers.IDs())
		return cli.ExitError
	}
	t.ctx = ctx
	// Hooks say nothing when they refuse the state folder (an agent
	// reads what a hook prints): the program that reads it says why.
	if err := spool.Check(paths.Spool(t.env)); errors.Is(err, paths.ErrNotOurs) {
		t.prog.Errorf("%s", paths.Refusal(err, "the spool there is neither written by the hooks nor read"))
		t.noSpool, t.notOurs = true, true
	} else if err != nil {
		t.prog.Errorf("%v: the hooks write no spool, and it is not read (remove it and start ag-tail again)", err)
		t.noSpool = true
	}
	if _, err := evfilter.New(ctx, t.opts.Filter); err != nil {
		t.prog.Errorf("%v", err)
		return cli.ExitError
	}
	var err error
	if t.opts.Follow {
		err = t.follow(ctx)
	} else {
		err = t.once(ctx)
	}
	if ferr := t.buf.Flush(); err == nil {
		err = ferr
	}
	switch {
	case err == nil:
		if t.reported > 0 || t.failed.Load() > 0 {
			return cli.ExitError // lines that are not events, files not read, a failed expression: all said
		}
	case cli.IsClosedPipe(err):
		return cli.ExitOK
	case errors.Is(err, context.Canceled):
		return cli.ExitInterrupted
	default:
		t.prog.Errorf("%v", err)
		return cli.ExitError
	}
	return cli.ExitOK
}

// parseSince reads a duration; "d" (days) is allowed besides Go's units.
func parseSince(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseFloat(n, 64)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		return time.Duration(days * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q (use 90s, 15m, 24h, 7d)", s)
	}
	return d, nil
}

// lineBuffer gathers whole event lines and writes them in batches, so a
// replay costs few system calls; every write still ends on a line end.
// Flush pushes out what is held (the follower calls it before it waits).
type lineBuffer struct {
	w   io.Writer
	buf []byte
}

const batch = 64 << 10

func (b *lineBuffer) Write(p []byte) (int, error) {
	if len(b.buf)+len(p) > batch && len(p) >= batch/2 {
		// A worker's whole output: written as it is, after what is held.
		if err := b.Flush(); err != nil {
			return 0, err
		}
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= batch {
		if err := b.Flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (b *lineBuffer) Flush() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}
