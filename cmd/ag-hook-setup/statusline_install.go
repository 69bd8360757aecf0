package main

import (
	"fmt"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/providers/provider"
)

// installStatusLine wraps (remove false) or restores (remove true) the
// agent's statusLine after its hooks were handled. An agent without one
// (Codex has no statusLine command) is skipped, with a note on install.
func (c *cmd) installStatusLine(in provider.Installer, ie provider.InstallEnv, remove bool) int {
	sl, ok := in.(provider.StatusLiner)
	if !ok {
		if !remove {
			fmt.Fprintf(c.stdout, "%s: no statusLine command to wrap (--statusline skipped)\n", in.ID())
		}
		return cli.ExitOK
	}
	do, verb := sl.InstallStatusLine, "install"
	if remove {
		do, verb = sl.UninstallStatusLine, "uninstall"
	}
	r, err := do(ie)
	if err != nil {
		c.prog.Errorf("%s %s: statusLine: %v", verb, in.ID(), err)
		return cli.ExitError
	}
	switch {
	case !r.Changed && !remove:
		fmt.Fprintf(c.stdout, "%s: statusLine already runs ag-hook statusline in %s\n", in.ID(), r.Path)
		return cli.ExitOK
	case !r.Changed:
		return cli.ExitOK // not ours: nothing to say on uninstall
	}
	what := map[bool]string{false: "now runs ag-hook statusline in", true: "restored in"}[remove]
	if ie.DryRun {
		what = "would be changed in"
	}
	fmt.Fprintf(c.stdout, "%s: statusLine %s %s", in.ID(), what, r.Path)
	if r.Backup != "" {
		fmt.Fprintf(c.stdout, "; previous version in %s", r.Backup)
	}
	fmt.Fprintln(c.stdout)
	for _, a := range r.Actions {
		fmt.Fprintf(c.stdout, "  %s\n", a)
	}
	return cli.ExitOK
}

// statusLineLine is status's line about the agent's statusLine, "" for an
// agent without one. It never changes the exit status: the statusLine is
// optional.
func (c *cmd) statusLineLine(in provider.Installer, ie provider.InstallEnv) string {
	sl, ok := in.(provider.StatusLiner)
	if !ok {
		return ""
	}
	st, err := sl.StatusLineStatus(ie)
	if err != nil {
		return fmt.Sprintf("%s: statusLine: %v", in.ID(), err)
	}
	line := in.ID() + ": statusLine: "
	switch st.State {
	case provider.Installed:
		line += "runs ag-hook statusline"
	case provider.NeedsRepair:
		line += "needs repair"
	default:
		line += "not ag's"
	}
	if len(st.Reasons) > 0 {
		line += " (" + strings.Join(st.Reasons, "; ") + ")"
	}
	return line
}
