package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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

The hook prints only what the agent requires of a hook that decides
nothing (nothing, or "{}" for agents that need it) and exits 0 on every
path, bad input and unwritable spool included, because agents read a hook's
output and exit status as decisions. Set AG_DEBUG=1 to log what went wrong to ag-hook.log in the state
directory (or AG_DEBUG=/abs/path to log there).

"ag-hook install --agent AGENT" adds ag's hooks to the agent's config, running
the absolute path of this ag-hook; "uninstall" removes them; "status" says, from
the file's contents, whether they are Installed, Need repair or are Not
installed. These edit the file structurally and atomically, keep every other
key and handler, keep the file as it was before ag first changed it in
FILE.ag-backup, and refuse, changing nothing in any file, a file they cannot
parse. Exit status: 0 ok, 1 (status) something
not installed or in need of repair, 2 error. "status" with --agent wants each
agent named Installed; without, it lists every agent and wants at least one
Installed and none in need of repair (an agent never installed for is fine).`

const statuslineLong = `Claude Code runs "ag-hook statusline" as its statusLine command: the JSON
Claude writes on stdin (model, cost, context window, the 5-hour and 7-day
rate-limit windows) becomes one meter event appended to ag's spool, which
ag-tail passes on to ag-fold; then one line is printed for Claude to show.

The line comes from --format, a Go template (default: model, context
left, cost, limits, other agents waiting). With --then CMD, "sh -c CMD"
gets the same stdin bytes and environment and its output is printed
instead, so the statusLine the user had keeps showing; "ag-hook install
--agent claude --statusline" sets this up and keeps the old command. If CMD
fails (non-zero exit, killed, or no answer within --then-timeout) ag's own
line is printed in its place. Whatever happens the command exits 0 and
prints a line: Claude blanks the status line otherwise. The spool append
never fails the line nor delays it more than 200 ms; an unchanged reading
is appended again only after ten minutes.

Template fields: .Model (display name, else id), .ModelID, .Session, .Cwd,
.Dir (last element of .Cwd), .ProjectDir, .Version, .Transcript, .Cost
(*float64), .Context (.Used .Size .LeftPct), .Left (*int, context left %),
.Limits (each .Window "5h"/"7d", .UsedPct, .ResetsAt), .Waiting (other
sessions waiting for the user, from ag-fold's state file) and .Others (their
state events). Functions: usd, pct, si, until, base.`

// HookExeEnv is how ag-hook tells this program its own path.
const HookExeEnv = "AG_HOOK_EXE"

type options struct {
	cli.Common
}

type installOpts struct {
	Agent  []string `long:"agent" value-name:"AGENT" description:"the agent whose config to edit (repeatable): claude, codex, opencode, pi, omp"`
	DryRun bool     `long:"dry-run" description:"say what would change, write nothing"`
	Hook   string   `long:"hook" value-name:"PATH" description:"the ag-hook path to write (default: the ag-hook that runs this)"`
	// Statusline also wraps Claude's statusLine (uninstall always restores it).
	Statusline bool `long:"statusline" description:"install: also make the agent's statusLine run ag-hook statusline, passing on to the command it had (uninstall restores that command)"`
}

type statusOpts struct {
	Agent []string `long:"agent" value-name:"AGENT" description:"the agent to check (repeatable; default: every agent ag can install for)"`
	Hook  string   `long:"hook" value-name:"PATH" description:"the ag-hook path the config should run (default: the ag-hook that runs this)"`
}

// hookOpts and statuslineOpts describe what ag-hook runs itself, for the
// help: ag-hook parses these by hand (see its run.go), and its tests hold
// the two to the same names.
type hookOpts struct {
	Print bool `long:"print" description:"write the events to stdout instead of the spool (to try a payload by hand; never in a hook)"`
}

type statuslineOpts struct {
	cli.Common
	statuslineFlags
}

type statuslineFlags struct {
	Then        string        `long:"then" value-name:"CMD" unquote:"false" description:"run CMD with sh -c, the same stdin and environment, and print its output instead of ag's line (ag's line if CMD fails)"`
	ThenTimeout time.Duration `long:"then-timeout" value-name:"DURATION" default:"5s" description:"give up on CMD after this long and print ag's line"`
	Format      string        `long:"format" value-name:"TEMPLATE" unquote:"false" description:"Go template for ag's line (see --man for the fields)"`
}

// cmd is one run of ag-hook-setup.
type cmd struct {
	prog   cli.Program
	stdout io.Writer
	env    paths.Env
	self   func() (string, error) // the ag-hook to write into configs
}

func run(args []string, stdout, stderr io.Writer) int {
	return newCmd(stdout, stderr).main(args)
}

func newCmd(stdout, stderr io.Writer) *cmd {
	env := paths.OS()
	return &cmd{
		prog:   cli.Program{Name: "ag-hook", Usage: "[OPTIONS]", Short: "the command agents' hooks run; installs those hooks", Long: long, Stdout: stdout, Stderr: stderr},
		stdout: stdout,
		env:    env,
		self:   func() (string, error) { return hookExe(env(HookExeEnv)) },
	}
}

func (c *cmd) main(args []string) int {
	if len(args) > 0 && args[0] == "statusline" {
		return c.statuslineHelp(args[1:])
	}
	var opts options
	var inst, uninst installOpts
	var stat statusOpts
	parser := c.prog.NewParser(&opts)
	for _, p := range providers.All() {
		if h, ok := p.(provider.Hooked); ok {
			parser.AddCommand(h.ID(), "run by "+p.Name()+"'s hooks: read a payload on stdin, append events to the spool",
				"Run by "+p.Name()+"'s hooks (ag-hook install --agent "+h.ID()+" sets them up). Reads one hook payload on stdin and appends the events it means to the spool; prints only the answer the agent requires of a hook that decides nothing, and exits 0 whatever happens.", &hookOpts{})
		}
	}
	parser.AddCommand("statusline", "Claude Code's statusLine command: a meter to ag, a line to Claude", "Run by Claude Code as its statusLine (ag-hook install --agent claude --statusline sets it up): appends a meter event to the spool and prints a line, or the output of --then CMD. See ag-hook statusline --man.", &statuslineFlags{})
	parser.AddCommand("install", "add ag's hooks to an agent's config", "Adds a handler running this ag-hook to every hook event ag maps, in the agent's config file, keeping everything else. Already installed: nothing changes. Needs repair: only what is wrong is rewritten.", &inst)
	parser.AddCommand("uninstall", "remove ag's hooks from an agent's config", "Removes every handler whose command runs ag-hook with the agent's name, and nothing else.", &uninst)
	parser.AddCommand("status", "say whether ag's hooks are installed", "Prints one line per agent: Installed, Needs repair (with why) or Not installed, read from the config file's contents. Exit status 0 when every agent named with --agent is installed (without --agent: at least one is and none needs repair), 1 otherwise, 2 on error.", &stat)

	command, rest, done, code := c.prog.ParseCommand(parser, &opts, args)
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
	case "":
		c.prog.Errorf("no command: give an agent (%s) or install, uninstall, status (see ag-hook --help)", strings.Join(hookedIDs(), ", "))
		return cli.ExitError
	}
	// A hook: ag-hook runs those itself and passes on only a request for
	// help, so this is someone running ag-hook-setup by hand.
	c.prog.Errorf("%s: run as ag-hook %s, not through ag-hook-setup", command, command)
	return cli.ExitError
}

// statuslineHelp answers `ag-hook statusline --help` (or --man, --version)
// with the statusline's own page, as ag-hook passes those on.
func (c *cmd) statuslineHelp(args []string) int {
	var o statuslineOpts
	p := c.prog
	p.Name, p.Usage, p.Short, p.Long = "ag-hook statusline", "[OPTIONS]", "Claude Code's statusLine command: a meter to ag, a line to Claude", statuslineLong
	if _, done, code := p.Parse(&o, args); done {
		return code
	}
	c.prog.Errorf("statusline: run as ag-hook statusline, not through ag-hook-setup")
	return cli.ExitError
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

// hookExe is the ag-hook to write into configs: the one that ran this
// program ($AG_HOOK_EXE, an absolute path), else the one beside it.
func hookExe(fromEnv string) (string, error) {
	if filepath.IsAbs(fromEnv) {
		return fromEnv, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this program's path: %w", err)
	}
	p := filepath.Join(filepath.Dir(exe), "ag-hook")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no ag-hook beside %s: run this as ag-hook, or give --hook PATH", exe)
	}
	return p, nil
}
