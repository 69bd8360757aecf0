package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/cmd/internal/evfilter"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/fold"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers"
)

type options struct {
	Snapshot bool   `long:"snapshot" description:"print the current states once and exit"`
	State    string `long:"state" value-name:"FILE" description:"the state file (default $AG_DIR/state.json)"`
	NoState  bool   `long:"no-state" description:"write no state file"`
	Pass     bool   `long:"pass" description:"also write every event read"`
	tmuxOptions
	glanceOptions
	Check        time.Duration `long:"check" value-name:"DUR" default:"2s" description:"check sessions' processes this often; 0 never"`
	Grace        time.Duration `long:"grace" value-name:"DUR" default:"30s" description:"a wait this old ends at the empty prompt" man:"the screen (ag-detect --panes) showing the empty prompt ends a hook's wait only once the wait is this old"`
	KeepGone     time.Duration `long:"keep-gone" value-name:"DUR" default:"10m" description:"how long a gone session stays"`
	Debounce     time.Duration `long:"debounce" value-name:"DUR" default:"100ms" description:"write the state file at most this often"`
	Publish      string        `long:"publish" value-name:"CMD" unquote:"false" description:"run CMD with the states on stdin when they change" man:"at most every second, with sh -c, every current state as NDJSON on stdin (a retained MQTT snapshot: mosquitto_pub -r -s -t ag/HOST/snapshot); a failed run is tried again"`
	PublishEvery time.Duration `long:"publish-every" value-name:"DUR" default:"60s" description:"run --publish this often anyway; 0 never"`
	bounds
	cli.Filter
	cli.Slurp
	cli.Common
}

// folder is one run of ag-fold.
type folder struct {
	prog    cli.Program
	opts    options
	env     paths.Env
	now     func() time.Time
	alive   func(fold.Proc) bool
	hung    func(fold.Proc) bool
	running commands // which waiting commands already run (answered.go)
	stdout  *bufio.Writer
	out     *cli.Writer
	filter  *evfilter.Filter
	fold    *fold.Folder

	pub       *publisher // --publish; nil without
	path      string     // state file; "" with --no-state
	written   uint64     // fold.Changes() when the state file was last written
	lastWrite time.Time
	// pendingSince is when the states changed first since the last write.
	pendingSince time.Time
	stateErr     string // last state-file error reported, so it is said once
	stateBad     bool   // writing the state file failed at some point: exit 2
	keeper       state.Writer
	confirmed    time.Time      // the state file last written or touched (wall clock)
	mark         markState      // what ties the state file to ag-tail's output
	lines        fold.LineCache // the state file's lines, kept between writes
	wrote        bool           // something reached stdout
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newFolder(stdout, stderr, paths.OS(), time.Now).main(ctx, args, stdin)
}

func newFolder(stdout, stderr io.Writer, env paths.Env, now func() time.Time) *folder {
	f := &folder{
		prog: program(),
		env:  env, now: now, alive: newLiveness(), hung: hung, running: running,
		mark: markState{written: true}, // tied to nothing until a mark comes
	}
	f.prog.Stdout, f.prog.Stderr = stdout, stderr
	f.stdout = bufio.NewWriterSize(&countWriter{w: stdout, n: &f.wrote}, 64<<10)
	f.out = cli.NewWriter(f.stdout)
	return f
}

func (f *folder) main(ctx context.Context, args []string, stdin io.Reader) int {
	rest, done, code := f.prog.Parse(&f.opts, args)
	if done {
		return code
	}
	if len(rest) > 0 {
		f.prog.Errorf("unexpected argument %q (events come on stdin; see ag-fold --help)", rest[0])
		return cli.ExitError
	}
	if msg := f.refuse(); msg != "" {
		f.prog.Errorf("%s (see ag-fold --help)", msg)
		return cli.ExitError
	}
	var err error
	if f.filter, err = evfilter.New(ctx, f.opts.Filter); err != nil {
		f.prog.Errorf("%v", err)
		return cli.ExitError
	}
	// --snapshot prints the last states only: none is made at each change.
	if msg := f.opts.bounds.refuse(); msg != "" {
		f.prog.Errorf("%s (see ag-fold --man)", msg)
		return cli.ExitError
	}
	cfg := fold.Config{PaneGrace: f.opts.Grace, KeepGone: f.opts.KeepGone, Quiet: f.opts.Snapshot,
		OneSession: providers.OneSessionPerProcess, ManySessions: providers.ManySessionsPerProcess,
		HookEnds: providers.HookEndsTurns, Estimate: providers.ApprovalEstimates(), Self: hostname.Of(f.env)}
	f.opts.bounds.apply(&cfg, !f.opts.Snapshot, func(msg string) { f.prog.Errorf("%s", msg) })
	f.fold = fold.New(cfg)
	f.path = f.opts.State
	if f.path == "" {
		f.path = paths.StateFile(f.env)
	}
	if f.opts.Slurp.Slurp && !f.opts.Snapshot {
		f.prog.Errorf("--slurp goes with --snapshot: a following fold has no end to run it at")
		return cli.ExitError
	}
	if err := f.filter.Slurp(f.opts.Slurp.Slurp); err != nil {
		f.prog.Errorf("%v", err)
		return cli.ExitError
	}
	for _, o := range []struct {
		name string
		set  bool
	}{{"--format", f.opts.Format != ""}, {"--table", f.opts.Table}} {
		if o.set && !f.opts.Snapshot {
			f.prog.Errorf("%s goes with --snapshot (see ag-fold --help)", o.name)
			return cli.ExitError
		}
	}
	if f.opts.Table {
		return f.table(ctx, stdin)
	}
	if f.opts.Snapshot && (f.opts.Format != "" || f.opts.Push) {
		return f.glance(ctx, stdin, f.opts.glanceOptions, f.opts.tmuxOptions)
	}
	if f.opts.Snapshot {
		return f.snapshot(ctx, stdin)
	}
	if f.opts.NoState {
		f.path = ""
	}
	if code := f.claim(); code != cli.ExitOK {
		return code
	}
	return f.follow(ctx, stdin)
}

// refuse names an option given that means nothing with the others.
func (f *folder) refuse() string {
	o := &f.opts
	switch {
	case o.Snapshot && o.Meaningless("pass", "no-state", "debounce") != "":
		return o.Meaningless("pass", "no-state", "debounce") + " means nothing with --snapshot, which writes no state file and passes no events"
	case o.NoState && o.Given("state"):
		return "--state and --no-state exclude each other"
	case !o.Push && o.Meaningless("socket", "socket-name", "tmux-socket", "tmux-name") != "":
		return o.Meaningless("socket", "socket-name", "tmux-socket", "tmux-name") + " picks the tmux server for --tmux, which is not given"
	}
	return ""
}

// claim makes the state file this run's: its folder must exist (the
// default one is made, 0700; one named with --state is not, so a typo is
// an error rather than a tree of new folders), and a file another running
// ag-fold keeps is left to it, with a warning, rather than overwritten by
// a one-off fold.
func (f *folder) claim() int {
	if f.path == "" {
		return cli.ExitOK
	}
	dir := filepath.Dir(f.path)
	if f.opts.State == "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			f.prog.Errorf("state file: %v", err)
			return cli.ExitError
		}
	} else if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		f.prog.Errorf("--state %s: no folder %s (create it, or see --no-state)", f.opts.State, dir)
		return cli.ExitError
	}
	// Another user who may write the folder could put a symlink where the
	// state file goes, or forge the states prompts and ag-keys read.
	if err := paths.CheckDir(dir); err != nil {
		f.prog.Errorf("%s", paths.Refusal(err, "no state file is written there"))
		f.path = ""
		return cli.ExitOK
	}
	f.keeper = state.Self(f.opts.Check)
	if old, err := state.Load(f.path); err == nil && old.Writer.PID != f.keeper.PID {
		if ok, _ := state.Here().Current(old); ok {
			f.prog.Errorf("%s is kept by another ag-fold (pid %d): not writing it (give --state FILE or --no-state)", f.path, old.Writer.PID)
			f.path = ""
		}
	}
	if f.path != "" && !f.opts.Snapshot {
		state.KeepPrevious(f.path)
	}
	return cli.ExitOK
}

// settle runs what the end of input or a tick decides: processes that
// died, prompts answered (their command runs), grace periods, gone
// sessions to drop.
func (f *folder) settle() []event.Event {
	now := f.now()
	var out []event.Event
	if f.opts.Check > 0 {
		for _, p := range f.fold.Procs() {
			reason := "process exited"
			switch {
			case !f.alive(p):
			case f.hung(p):
				// Its pane or window closed, and it ignored the hang-up:
				// nobody can type to it any more (filters/alive.Hung).
				reason = "its terminal closed"
			default:
				continue
			}
			e := event.New(event.ProcDown, now, "", "")
			e.Src, e.PID, e.Reason = event.SrcProc, p.PID, reason
			e.ID = event.MakeID(event.SrcProc, "down", itoa(p.PID), p.Seen.String())
			out = append(out, f.fold.Apply(&e)...)
		}
		out = append(out, f.answers(context.Background(), now)...)
	}
	return append(out, f.fold.Tick(now)...)
}

// countWriter notes that something was written, for the exit status.
type countWriter struct {
	w io.Writer
	n *bool
}

func (c *countWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		*c.n = true
	}
	return c.w.Write(p)
}
