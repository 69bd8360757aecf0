package main

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/filters/tmux"
	"github.com/agwatch/ag/providers"
)

type options struct {
	All      bool          `long:"all" description:"a proc.up event for every pane with an agent (default)"`
	Panes    bool          `long:"panes" description:"read each agent's screen: waits and their ends"`
	Watch    bool          `long:"watch" description:"keep looking; write only what changes"`
	Interval time.Duration `long:"interval" value-name:"D" default:"1s" description:"how often --watch looks if tmux cannot follow panes"`
	Pane     bool          `long:"pane" description:"one line for this pane (or PANE) from the state file"`
	Format   string        `long:"format" value-name:"TEMPLATE" unquote:"false" description:"with --pane: a Go template for the line" man:"over the state's fields plus .Icon, .Detail and .Who (see PROMPT SEGMENT)"`
	State    string        `long:"state" value-name:"FILE" description:"with --pane: the state file to read"`
	Check    bool          `long:"check-agents" description:"check the agent definitions (or FILEs)" man:"every agent definition ag runs, built in and in $XDG_CONFIG_HOME/ag/agents, or the files named, read as ag reads them: each fault on stderr as FILE:LINE: why (exit 1)"`
	Explain  bool          `long:"explain" description:"why PANE is what ag says it is" man:"the processes looked at, the agent and the rule that took it, the screen state and the line and pattern that placed it, and what ag-keys would type for each answer"`
	ForTmux  bool          `long:"for-tmux" description:"with --pane: the line goes in a tmux format (#(…))" man:"every # in what the agent wrote is doubled, so tmux shows it and never reads #{…}, #(…) or #[…] out of it"`
	servers
	cli.Common
}

// servers are the tmux servers to look at, -S and -L as every program
// takes them (the same spellings as cli.Tmux); --watch follows every one
// given.
type servers struct {
	Socket    []string `short:"S" long:"socket" value-name:"PATH" description:"tmux server socket (default: $TMUX's); --watch: many" man:"as tmux -S; without it, the server in $TMUX, else tmux's default. With --watch -S and -L may be given more than once: each server is followed"`
	Name      []string `short:"L" long:"socket-name" value-name:"NAME" description:"tmux server socket name (tmux -L)"`
	SocketAka []string `long:"tmux-socket" value-name:"PATH" hidden:"true"`
	NameAka   []string `long:"tmux-name" value-name:"NAME" hidden:"true"`
}

// clients are the servers given, one client each (the default server
// when none is).
func (v servers) clients() []*tmux.Client {
	var cs []*tmux.Client
	for _, s := range append(v.Socket, v.SocketAka...) {
		cs = append(cs, &tmux.Client{Socket: s})
	}
	for _, n := range append(v.Name, v.NameAka...) {
		cs = append(cs, &tmux.Client{Name: n})
	}
	if len(cs) == 0 {
		cs = append(cs, &tmux.Client{})
	}
	return cs
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

	mu sync.Mutex // one writer at a time: several servers, stdin passed through
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
	if d.opts.Check {
		if m := d.opts.Meaningless("watch", "all", "panes", "interval", "pane", "format", "state", "explain", "socket", "socket-name", "tmux-socket", "tmux-name"); m != "" {
			d.prog.Errorf("%s means nothing with --check-agents (see ag-detect --help)", m)
			return cli.ExitError
		}
		return d.checkAgents(rest)
	}
	if d.opts.Explain {
		if m := d.opts.Meaningless("watch", "all", "panes", "interval", "pane", "format", "state"); m != "" {
			d.prog.Errorf("%s means nothing with --explain (see ag-detect --help)", m)
			return cli.ExitError
		}
		if len(rest) != 1 || !paneID(rest[0]) {
			d.prog.Errorf("--explain takes one pane id (%%3), got %q (see ag-detect --help)", rest)
			return cli.ExitError
		}
		if d.tmux = d.server(); d.tmux == nil {
			return cli.ExitError
		}
		d.definitionErrors()
		return d.explain(ctx, rest[0])
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
	if m := d.opts.Meaningless("format", "state", "for-tmux"); m != "" {
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
	if d.opts.Watch {
		d.definitionErrors()
		return d.watchServers(ctx, stdin)
	}
	if d.tmux = d.server(); d.tmux == nil {
		return cli.ExitError
	}
	d.definitionErrors()
	return newScanner(d).once(ctx)
}

// server is the one tmux server a mode that is not --watch looks at
// (nil, said, when several are given).
func (d *detector) server() *tmux.Client {
	cs := d.opts.clients()
	if len(cs) > 1 {
		d.prog.Errorf("one tmux server at a time (-S or -L once), except with --watch (see ag-detect --help)")
		return nil
	}
	return cs[0]
}

// event writes one event (a server's follower, or another's).
func (d *detector) event(e *event.Event) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.out.Event(e)
}

// definitionErrors says, once, which agent definitions were refused and
// why (FILE:LINE: …): the agents they define are not looked for.
func (d *detector) definitionErrors() {
	for _, err := range providers.DefinitionErrors() {
		d.prog.Errorf("%s", safetext.Line(err.Error(), 0))
	}
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
