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

// HookExeEnv is how ag-hook tells this program its own path.
const HookExeEnv = "AG_HOOK_EXE"

type options struct {
	cli.Common
}

type installOpts struct {
	Agent  []string `long:"agent" value-name:"AGENT" description:"the agent whose config to edit (repeatable)"`
	DryRun bool     `long:"dry-run" description:"say what would change, write nothing"`
	Hook   string   `long:"hook" value-name:"PATH" description:"the ag-hook the hooks run (default: this one)"`
	// Statusline also wraps the agent's status line (Claude's statusLine,
	// Qwen's ui.statusLine; uninstall always restores it).
	Statusline bool `long:"statusline" description:"also wrap the agent's status line (Claude, Qwen), keeping yours"`
	Force      bool `long:"force" description:"install for an agent not seen on this machine"`
	Verbose    bool `short:"v" long:"verbose" description:"list every hook added or removed"`
	all        bool // uninstall --all
}

type uninstallOpts struct {
	Agent   []string `long:"agent" value-name:"AGENT" description:"the agent whose config to edit (repeatable)"`
	All     bool     `long:"all" description:"every agent whose config has anything of ag's"`
	DryRun  bool     `long:"dry-run" description:"say what would change, write nothing"`
	Verbose bool     `short:"v" long:"verbose" description:"list every hook removed"`
}

type statusOpts struct {
	Agent   []string `long:"agent" value-name:"AGENT" description:"the agent to check (repeatable; default: every agent on this machine)"`
	Hook    string   `long:"hook" value-name:"PATH" description:"the ag-hook the hooks should run (default: this one)"`
	Verbose bool     `short:"v" long:"verbose" description:"say why, name the files and backups, every agent"`
}

// hookOpts and statuslineOpts describe what ag-hook runs itself, for the
// help: ag-hook parses these by hand (see its run.go), and its tests hold
// the two to the same names.
type hookOpts struct {
	Print bool `long:"print" description:"write the events to stdout, not the spool (to try a payload)"`
}

type statuslineOpts struct {
	cli.Common
	statuslineFlags
}

type statuslineFlags struct {
	Agent       string        `long:"agent" value-name:"ID" description:"whose payload it is (default: claude; qwen for Qwen Code)"`
	Then        string        `long:"then" value-name:"CMD" unquote:"false" description:"print what sh -c CMD prints (ag's line if it fails)"`
	ThenTimeout time.Duration `long:"then-timeout" value-name:"DUR" default:"5s" description:"give up on CMD after this long"`
	Format      string        `long:"format" value-name:"TEMPLATE" unquote:"false" description:"a Go template for ag's line (fields: --man)"`
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
		prog: func() cli.Program {
			p := program(hookedIDs())
			p.Stdout, p.Stderr = stdout, stderr
			return p
		}(),
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
	var inst installOpts
	var uninst uninstallOpts
	var stat statusOpts
	parser := c.prog.NewParser(&opts)
	for _, p := range providers.All() {
		if h, ok := p.(provider.Hooked); ok {
			// One command per agent, listed as AGENT in the help: there
			// are as many as agents with hooks.
			c, _ := parser.AddCommand(h.ID(), "what "+p.Name()+"'s hooks run",
				"Run by "+p.Name()+"'s hooks (ag-hook install --agent "+h.ID()+" sets them up): reads one hook payload on stdin, appends the events it means to the spool, prints only the answer "+p.Name()+" wants of a hook that decides nothing, and exits 0 whatever happens.", &hookOpts{})
			c.Hidden = true
			c.Aliases = nil
		}
	}
	parser.AddCommand("install", "add ag's hooks to an agent's config", "Adds a handler running this ag-hook to every hook event ag maps, keeping everything else in the agent's config; installed already, nothing changes; in need of repair, only what is wrong is rewritten.", &inst)
	parser.AddCommand("uninstall", "take ag's hooks out of an agent's config", "Removes every handler that runs ag-hook with the agent's name, and nothing else; your file comes back as it was where ag touched nothing of yours.", &uninst)
	parser.AddCommand("status", "say whether ag's hooks are installed", "One line per agent on this machine: installed, not installed, needs repair, or not trusted yet; --verbose says why and names the files. Exit 0 when the agents named (without --agent: at least one, and none in need of repair or trust) are installed, 1 otherwise, 2 on error.", &stat)
	parser.AddCommand("statusline", "an agent's status line (Claude Code, Qwen Code): a meter to ag, a line back", "See ag-hook statusline --help.", &statuslineFlags{})

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
		return c.install(installOpts{Agent: uninst.Agent, DryRun: uninst.DryRun, Verbose: uninst.Verbose, all: uninst.All}, true)
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
	p.Name, p.Usage, p.Synopsis, p.Short = "ag-hook statusline", "[--agent ID] [--then CMD] [--then-timeout DUR] [--format TEMPLATE] < payload", nil, "an agent's status-line command (Claude Code, Qwen Code): a meter to ag, a line back"
	p.Help, p.Examples, p.Long, p.Commands = statuslineHelp, statuslineExamples, statuslineLong, nil
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
