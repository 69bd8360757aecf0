package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/tmux"
)

type options struct {
	All      bool          `long:"all" description:"a proc.up event for every pane with an agent (default)"`
	Panes    bool          `long:"panes" description:"read each agent's screen: waits and their ends"`
	Watch    bool          `long:"watch" description:"keep looking; write only what changes"`
	Interval time.Duration `long:"interval" value-name:"D" default:"1s" description:"how often --watch looks"`
	Pane     bool          `long:"pane" description:"one line for this pane (or PANE) from the state file"`
	Format   string        `long:"format" value-name:"TEMPLATE" unquote:"false" description:"with --pane: a Go template for the line" man:"over the state's fields plus .Icon, .Detail and .Who (see PROMPT SEGMENT)"`
	State    string        `long:"state" value-name:"FILE" description:"with --pane: the state file to read"`
	cli.Tmux
	cli.Common
}

// detector is one run of ag-detect.
type detector struct {
	opts   options
	prog   cli.Program
	out    *cli.Writer
	stdout io.Writer
	tmux   *tmux.Client
	getenv func(string) string
	now    func() time.Time
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	d := &detector{
		prog:   program(),
		stdout: stdout,
		getenv: os.Getenv,
		now:    time.Now,
	}
	d.prog.Stdout, d.prog.Stderr = stdout, stderr
	rest, done, code := d.prog.Parse(&d.opts, args)
	if done {
		return code
	}
	if d.opts.Pane {
		if len(rest) > 1 {
			d.prog.Errorf("--pane takes at most one pane, got %q (see ag-detect --help)", rest)
			return cli.ExitError
		}
		// A prompt segment reads one file: every option of the tmux scan
		// means nothing here.
		if m := d.opts.Meaningless("watch", "all", "panes", "interval", "socket", "socket-name", "tmux-socket", "tmux-name"); m != "" {
			d.prog.Errorf("%s means nothing with --pane, which reads the state file and never runs tmux (see ag-detect --help)", m)
			return cli.ExitError
		}
		pane := ""
		if len(rest) == 1 {
			pane = rest[0]
			if !paneID(pane) {
				d.prog.Errorf("--pane %s: not a tmux pane id (%%3, as #{pane_id} and $TMUX_PANE give it)", pane)
				return cli.ExitError
			}
		}
		return d.segment(pane)
	}
	if m := d.opts.Meaningless("format", "state"); m != "" {
		d.prog.Errorf("%s goes with --pane (see ag-detect --help)", m)
		return cli.ExitError
	}
	if d.opts.Given("interval") && !d.opts.Watch {
		d.prog.Errorf("--interval goes with --watch (see ag-detect --help)")
		return cli.ExitError
	}
	if len(rest) > 0 {
		d.prog.Errorf("unexpected argument %q (see ag-detect --help)", rest[0])
		return cli.ExitError
	}
	if d.opts.Interval <= 0 {
		d.prog.Errorf("--interval must be positive, got %v", d.opts.Interval)
		return cli.ExitError
	}
	if !d.opts.Panes {
		d.opts.All = true
	}
	d.out = cli.NewWriter(stdout)
	socket, name := d.opts.Server()
	d.tmux = &tmux.Client{Socket: socket, Name: name}
	s := newScanner(d)
	if d.opts.Watch {
		return s.watch(ctx)
	}
	return s.once(ctx)
}

// paneID reports whether s is a tmux pane id: "%" and digits.
func paneID(s string) bool {
	if len(s) < 2 || s[0] != '%' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
