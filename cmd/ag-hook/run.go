package main

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

const long = `ag-hook is the command agents' hooks run. "ag-hook AGENT" (for example
"ag-hook claude") reads one hook payload on stdin and appends the events it
means to ag's spool, $AG_DIR/spool.ndjson, else $XDG_STATE_HOME/ag/spool.ndjson,
else ~/.local/state/ag/spool.ndjson (file 0600, directory 0700, rotated to
spool.ndjson.1 past 16 MiB or $AG_SPOOL_MAX bytes). Each event records the
agent's pid and tty (found by walking up from ag-hook's parent: a process named
like the agent wins, else the first ancestor with a terminal, else the parent),
the tmux pane ($TMUX_PANE), the working directory and the host. No other
environment variable is read into an event.

The hook prints nothing and exits 0 on every path, bad input and unwritable
spool included, because agents read a hook's output and exit status as
decisions. Set AG_DEBUG=1 to log what went wrong to ag-hook.log in the state
directory (or AG_DEBUG=/abs/path to log there).

"ag-hook install --agent AGENT" adds ag's hooks to the agent's config, running
the absolute path of this ag-hook; "uninstall" removes them; "status" says, from
the file's contents, whether they are Installed, Need repair or are Not
installed. These edit the file structurally and atomically, keep every other
key and handler, back it up first (FILE.ag-backup) and refuse, changing
nothing, a file they cannot parse. Exit status: 0 ok, 1 (status) something
not installed or in need of repair, 2 error. "status" with --agent wants each
agent named Installed; without, it lists every agent and wants at least one
Installed and none in need of repair (an agent never installed for is fine).`

type options struct {
	cli.Common
}

type installOpts struct {
	Agent  []string `long:"agent" value-name:"AGENT" description:"the agent whose config to edit (repeatable): claude, codex"`
	DryRun bool     `long:"dry-run" description:"say what would change, write nothing"`
	Hook   string   `long:"hook" value-name:"PATH" description:"the ag-hook path to write (default: this program)"`
	// Statusline also wraps Claude's statusLine (uninstall always restores it).
	Statusline bool `long:"statusline" description:"install: also make the agent's statusLine run ag-hook statusline, passing on to the command it had (uninstall restores that command)"`
}

type statusOpts struct {
	Agent []string `long:"agent" value-name:"AGENT" description:"the agent to check (repeatable; default: every agent ag can install for)"`
	Hook  string   `long:"hook" value-name:"PATH" description:"the ag-hook path the config should run (default: this program)"`
}

type hookOpts struct {
	Print bool `long:"print" description:"write the events to stdout instead of the spool (to try a payload by hand; never in a hook)"`
}

// cmd is one run of ag-hook.
type cmd struct {
	ctx    context.Context
	prog   cli.Program
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	env    paths.Env
	now    func() time.Time
	self   func() (string, error) // this program's path, for install
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newCmd(ctx, stdin, stdout, stderr).main(args)
}

func newCmd(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) *cmd {
	return &cmd{
		ctx:    ctx,
		prog:   cli.Program{Name: "ag-hook", Usage: "[OPTIONS]", Short: "the command agents' hooks run; installs those hooks", Long: long, Stdout: stdout, Stderr: stderr},
		stdin:  stdin,
		stdout: stdout,
		stderr: stderr,
		env:    paths.OS(),
		now:    time.Now,
		self:   func() (string, error) { return selfPath(os.Args[0]) },
	}
}

func (c *cmd) main(args []string) int {
	// The hot path: an agent runs "ag-hook claude" many times a turn, so
	// skip the flag parser when that is all there is.
	if len(args) == 1 {
		if h := hooked(args[0]); h != nil {
			return c.hook(h, false)
		}
	}
	if len(args) > 0 && args[0] == "statusline" {
		return c.statuslineMain(args[1:]) // prints a line and exits 0 whatever the flags
	}
	var opts options
	var inst, uninst installOpts
	var stat statusOpts
	hookFlags := map[string]*hookOpts{}
	parser := c.prog.NewParser(&opts)
	for _, p := range providers.All() {
		if h, ok := p.(provider.Hooked); ok {
			o := &hookOpts{}
			hookFlags[h.ID()] = o
			parser.AddCommand(h.ID(), "run by "+p.Name()+"'s hooks: read a payload on stdin, append events to the spool",
				"Run by "+p.Name()+"'s hooks (ag-hook install --agent "+h.ID()+" sets them up). Reads one hook payload on stdin and appends the events it means to the spool; prints nothing and exits 0 whatever happens.", o)
		}
	}
	parser.AddCommand("statusline", "Claude Code's statusLine command: a meter to ag, a line to Claude", "Run by Claude Code as its statusLine (ag-hook install --agent claude --statusline sets it up): appends a meter event to the spool and prints a line, or the output of --then CMD. See ag-hook statusline --man.", &statuslineFlags{})
	parser.AddCommand("install", "add ag's hooks to an agent's config", "Adds a handler running this ag-hook to every hook event ag maps, in the agent's config file, keeping everything else. Already installed: nothing changes. Needs repair: only what is wrong is rewritten.", &inst)
	parser.AddCommand("uninstall", "remove ag's hooks from an agent's config", "Removes every handler whose command runs ag-hook with the agent's name, and nothing else.", &uninst)
	parser.AddCommand("status", "say whether ag's hooks are installed", "Prints one line per agent: Installed, Needs repair (with why) or Not installed, read from the config file's contents. Exit status 0 when every agent named with --agent is installed (without --agent: at least one is and none needs repair), 1 otherwise, 2 on error.", &stat)

	command, rest, done, code := c.prog.ParseCommand(parser, &opts, args)
	if h := firstHooked(args); h != nil && (done || command == h.ID()) {
		// A hook must never exit 2 (the agent would take it as "block"),
		// and arguments it does not know (an install by a newer ag-hook)
		// must not cost the event.
		if done && code != cli.ExitError {
			return code
		}
		if len(rest) > 0 || done {
			c.debugf("%s: ignoring arguments %q", h.ID(), args[1:])
		}
		return c.hook(h, !done && hookFlags[h.ID()].Print)
	}
	if done {
		return code
	}
	if command == "" && len(rest) > 0 {
		c.prog.Errorf("unknown command %q: give an agent (%s) or install, uninstall, status (see ag-hook --help)", rest[0], strings.Join(hookedIDs(), ", "))
		return cli.ExitError
	}
	if len(rest) > 0 {
		c.prog.Errorf("unexpected argument %q (see ag-hook --help)", rest[0])
		return cli.ExitError
	}
	switch command {
	case "install":
		return c.install(inst, false)
	case "uninstall":
		return c.install(uninst, true)
	case "status":
		return c.status(stat)
	}
	c.prog.Errorf("no command: give an agent (%s) or install, uninstall, status (see ag-hook --help)", strings.Join(hookedIDs(), ", "))
	return cli.ExitError
}

// hooked is the provider named id if ag-hook can run its hooks.
func hooked(id string) provider.Hooked {
	h, _ := providers.ByID(id).(provider.Hooked)
	return h
}

// firstHooked is the hooked agent named by the first non-option argument.
func firstHooked(args []string) provider.Hooked {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return hooked(a)
		}
	}
	return nil
}

func hookedIDs() []string {
	var ids []string
	for _, p := range providers.All() {
		if _, ok := p.(provider.Hooked); ok {
			ids = append(ids, p.ID())
		}
	}
	return ids
}

// installers are the agents named (all that have an Installer when none).
func (c *cmd) installers(names []string) ([]provider.Installer, bool) {
	var out []provider.Installer
	for _, p := range providers.All() {
		if in, ok := p.(provider.Installer); ok && (len(names) == 0 || slices.Contains(names, p.ID())) {
			out = append(out, in)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(out, func(in provider.Installer) bool { return in.ID() == n }) {
			var ids []string
			for _, p := range providers.All() {
				if _, ok := p.(provider.Installer); ok {
					ids = append(ids, p.ID())
				}
			}
			c.prog.Errorf("--agent %s: no such agent (one of: %s)", n, strings.Join(ids, ", "))
			return nil, false
		}
	}
	return out, true
}
