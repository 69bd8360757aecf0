package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/providers/provider"
)

// install runs `install` (remove false) or `uninstall` (remove true).
func (c *cmd) install(o installOpts, remove bool) int {
	verb := "install"
	if remove {
		verb = "uninstall"
	}
	if len(o.Agent) == 0 {
		c.prog.Errorf("%s: --agent is required (one of: %s)", verb, strings.Join(hookedIDs(), ", "))
		return cli.ExitError
	}
	ins, ok := c.installers(o.Agent)
	if !ok {
		return cli.ExitError
	}
	hook, err := c.hookPath(o.Hook)
	if err != nil {
		c.prog.Errorf("%s: %v", verb, err)
		return cli.ExitError
	}
	code := cli.ExitOK
	for _, in := range ins {
		ie := provider.InstallEnv{Env: c.env, Hook: hook, DryRun: o.DryRun}
		var res provider.InstallResult
		if remove {
			res, err = in.Uninstall(ie)
		} else {
			res, err = in.Install(ie)
		}
		if err != nil {
			c.prog.Errorf("%s %s: %v", verb, in.ID(), err)
			code = cli.ExitError
			continue
		}
		c.report(in.ID(), verb, res, o.DryRun)
		if (o.Statusline || remove) && c.installStatusLine(in, ie, remove) != cli.ExitOK {
			code = cli.ExitError
		}
	}
	if !remove {
		c.warnHook(hook)
	}
	return code
}

// warnHook says so when hooks running hook will break (hookpath.go).
func (c *cmd) warnHook(hook string) {
	if w := hookWarning(hook, c.env); w != "" {
		fmt.Fprintln(c.stdout, "warning: "+w)
	}
}

// report says what install/uninstall did, for people.
func (c *cmd) report(id, verb string, res provider.InstallResult, dry bool) {
	switch {
	case !res.Changed && verb == "install":
		fmt.Fprintf(c.stdout, "%s: already installed in %s\n", id, res.Path)
		return
	case !res.Changed:
		fmt.Fprintf(c.stdout, "%s: no ag hooks in %s\n", id, res.Path)
		return
	}
	what := map[string]string{"install": "installed in", "uninstall": "removed from"}[verb]
	if dry {
		what = "would be " + what
	}
	added, removed := 0, 0
	for _, a := range res.Actions {
		switch {
		case strings.HasPrefix(a, "+"):
			added++
		case strings.HasPrefix(a, "-"):
			removed++
		} // "!": a note for the user (Codex's trust reminder), no change
	}
	var counts []string
	if added > 0 {
		counts = append(counts, fmt.Sprintf("%d added", added))
	}
	if removed > 0 {
		counts = append(counts, fmt.Sprintf("%d removed", removed))
	}
	fmt.Fprintf(c.stdout, "%s: hooks %s %s (%s)", id, what, res.Path, strings.Join(counts, ", "))
	if res.Backup != "" {
		fmt.Fprintf(c.stdout, "; previous version in %s", res.Backup)
	}
	fmt.Fprintln(c.stdout)
	for _, a := range res.Actions {
		fmt.Fprintf(c.stdout, "  %s\n", a)
	}
}

// status prints one line per agent.
func (c *cmd) status(o statusOpts) int {
	ins, ok := c.installers(o.Agent)
	if !ok {
		return cli.ExitError
	}
	hook, err := c.hookPath(o.Hook)
	if err != nil {
		c.prog.Errorf("status: %v", err)
		return cli.ExitError
	}
	// Named agents must each be Installed. With no --agent every agent is
	// listed, but one the user never installed for (Not installed) is no
	// fault: 0 needs at least one Installed and none in need of repair.
	named := len(o.Agent) > 0
	code, installed, used := cli.ExitOK, 0, false
	for _, in := range ins {
		st, err := in.Status(provider.InstallEnv{Env: c.env, Hook: hook})
		if err != nil {
			c.prog.Errorf("status %s: %v", in.ID(), err)
			code = cli.ExitError
			continue
		}
		line := fmt.Sprintf("%s: %s (%s)", in.ID(), st.State, st.Path)
		if len(st.Reasons) > 0 {
			line += ": " + strings.Join(st.Reasons, "; ")
		}
		fmt.Fprintln(c.stdout, line)
		if sl := c.statusLineLine(in, provider.InstallEnv{Env: c.env, Hook: hook}); sl != "" {
			fmt.Fprintln(c.stdout, sl)
		}
		if st.State != provider.NotInstalled {
			used = true
		}
		switch {
		case st.State == provider.Installed:
			installed++
		case st.State == provider.NotInstalled && !named:
		case code == cli.ExitOK:
			code = cli.ExitNoMatch
		}
	}
	if used {
		c.warnHook(hook)
	}
	if code == cli.ExitOK && installed == 0 {
		code = cli.ExitNoMatch
	}
	return code
}

// hookPath is the absolute ag-hook path to write into configs: --hook,
// else the ag-hook that runs this.
func (c *cmd) hookPath(flag string) (string, error) {
	if flag == "" {
		return c.self()
	}
	return filepath.Abs(flag)
}
