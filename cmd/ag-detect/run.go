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
	cli.Common
	All      bool          `long:"all" description:"write a proc.up event for every pane that runs an agent (the default)"`
	Panes    bool          `long:"panes" description:"classify each agent pane's screen: wait and wait.end events (src pane)"`
	Watch    bool          `long:"watch" description:"keep looking every --interval and write only changes (proc.up/proc.down, pane events with --panes)"`
	Interval time.Duration `long:"interval" value-name:"D" default:"1s" description:"how often --watch looks"`
	Pane     bool          `long:"pane" description:"print a prompt segment for the current pane ($TMUX_PANE) or the PANE argument, from the state file"`
	Format   string        `long:"format" value-name:"TEMPLATE" unquote:"false" description:"Go template for --pane: the state event's fields (.Agent .Status .Attention .Tool .Text .Model .Cwd …) plus .Icon and .Detail"`
	State    string        `long:"state" value-name:"FILE" description:"state file --pane reads (default $AG_DIR/state.json, else $XDG_RUNTIME_DIR/ag/state.json)"`
	cli.Tmux
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
		prog: cli.Program{
			Name:   "ag-detect",
			Usage:  "[--all] [--panes] [--watch [--interval D]] [-L NAME | -S PATH] | --pane [PANE] [--format TEMPLATE]",
			Short:  "which agent runs in which tmux pane, and what its screen shows",
			Long:   long,
			Stdout: stdout,
			Stderr: stderr,
		},
		stdout: stdout,
		getenv: os.Getenv,
		now:    time.Now,
	}
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

const long = `ag-detect says which agent runs in which tmux pane, and what its screen shows.

With --all (the default) it lists every pane of the tmux server ($TMUX, or -L/-S) that runs an agent, as proc.up events (src proc) with pane, pid, tty, agent, cwd and argv0; session is the one the process's command line names (codex resume <id>), else "" (ag-fold matches a pane to its session). The agent is found from the pane's foreground process by each provider's rules — executable path, argv[0], and the script an interpreter such as node runs — through shells and wrappers (their children and grandchildren, a handful at most), and last from AG_AGENT=<agent> in a wrapper's exec-time environment (for ssh or docker exec, which cannot be seen through).

With --panes it captures each agent pane and classifies the bottom of the screen by the provider's pane rules: a permission prompt, a question picker or a plan approval is a wait event (src pane, attention permission/question/plan, tool when visible, text: the command, question or plan's first lines); a positively idle composer (empty, or holding a draft, with nothing at work) is a wait.end event with reason idle; the agent at work right after a prompt is a wait.end with reason busy (the prompt was answered, which no hook reports until the tool ends). ag-fold lets pane events raise a session to waiting and relabel its attention, end a wait at once when the pane shows the agent at work, and lower it to idle only on idle evidence after a grace period.

With --watch it repeats every --interval and writes only changes: proc.up and proc.down as agents start and exit, and (with --panes) pane events as screens change. A pane is captured again only when tmux says its window had activity.

With --pane it is a prompt segment: one short line for the current pane ($TMUX_PANE) or PANE, from ag-fold's state file, such as "claude ⏳ Bash" (waiting for permission for Bash), "claude ❓" (a question), "claude 📋" (a plan), "claude ⚙" (working), "claude ✓" (done), "claude ✗" (failed), "claude" (idle); nothing at all, exit 0, when no session is known in the pane or it is gone. It reads one file and never runs tmux.

A tmux server that cannot be reached is an error (exit 2), never an empty answer.`
