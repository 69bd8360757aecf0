package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/agentdef/defhooks"
	"github.com/agwatch/ag/providers/hooks"
)

// Exit statuses. A hook and the statusline exit 0 whatever happens; only
// failing to run ag-hook-setup is an error of ag-hook's own.
const (
	exitOK    = 0
	exitError = 2
)

// cmd is one run of ag-hook.
type cmd struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	env    paths.Env
	now    func() time.Time
	setup  func(args []string) int // ag-hook-setup, for all that is not run here
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newCmd(ctx, stdin, stdout, stderr).main(args)
}

func newCmd(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) *cmd {
	c := &cmd{
		ctx:    ctx,
		stdin:  stdin,
		stdout: stdout,
		stderr: stderr,
		env:    paths.OS(),
		now:    time.Now,
	}
	c.setup = c.execSetup
	return c
}

// main runs what an agent runs, parsing those few arguments by hand: the
// flag parser (and the config editors) would double this program's size,
// and start-up time grows with it. The rest (install, uninstall, status,
// --help, --man, --version, anything unknown) is ag-hook-setup's.
func (c *cmd) main(args []string) int {
	// The hot path: an agent runs "ag-hook claude" many times a turn.
	if len(args) == 1 {
		if h := c.hooked(args[0]); h != nil {
			return c.hook(h, "", false)
		}
	}
	if len(args) > 0 && args[0] == "statusline" {
		o, stray, err := parseStatusline(args[1:])
		switch {
		case err == errHelp:
			return c.setup(args)
		case err != nil:
			// Claude blanks its status line unless a line comes: say what
			// is wrong and print the default one.
			c.errorf("statusline: %v (see ag-hook statusline --help)", err)
			o = statuslineOpts{}
		case len(stray) > 0:
			c.errorf("statusline: unexpected argument %q (ignored)", stray[0])
		}
		return c.statusline(o)
	}
	if h := c.firstHooked(args); h != nil && !asksHelp(args) {
		// A hook must never exit 2 (the agent would take it as "block"),
		// and arguments it does not know (an install by a newer ag-hook)
		// must not cost the event.
		// The word after the agent names the hook event, for agents
		// whose payloads do not (Copilot's camelCase hooks).
		toStdout, hookEvent, seen := false, "", false
		for _, a := range args {
			switch {
			case a == "--print":
				toStdout = true
			case a == h.ID() && !seen:
				seen = true
			case seen && hookEvent == "" && a != "" && a[0] != '-':
				hookEvent = a
			default:
				c.debugf("%s: ignoring argument %q", h.ID(), a)
			}
		}
		return c.hook(h, hookEvent, toStdout)
	}
	return c.setup(args)
}

// hooked is the agent named id if ag-hook can run its hooks: one written
// in Go, else one whose definition declares a hook dialect (read only for
// an id no Go agent has, so their hooks read no file).
func (c *cmd) hooked(id string) hooks.Mapper {
	if m := hooks.ByID(id); m != nil {
		return m
	}
	if d := defhooks.Find(c.env, id); d != nil {
		return d
	}
	return nil
}

// firstHooked is the hooked agent named by the first non-option argument.
func (c *cmd) firstHooked(args []string) hooks.Mapper {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return c.hooked(a)
		}
	}
	return nil
}

// asksHelp says whether args ask for a page rather than a run.
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "--help", "--man", "--version":
			return true
		}
	}
	return false
}

// errorf reports ag-hook's own trouble on stderr, prefixed, one line.
func (c *cmd) errorf(format string, a ...any) {
	fmt.Fprintf(c.stderr, "ag-hook: "+format+"\n", a...)
}
