package main

import (
	"fmt"
	"strings"

	"github.com/agwatch/ag/providers/provider"
)

// reportStatusLine says what wrapping (remove false) or restoring (remove
// true) the agent's statusLine did.
func (c *cmd) reportStatusLine(id string, r provider.InstallResult, remove, dry bool) {
	switch {
	case !r.Changed && !remove:
		fmt.Fprintf(c.stdout, "%s: statusLine already runs ag-hook statusline in %s\n", id, c.short(r.Path))
		return
	case !r.Changed:
		return // not ours: nothing to say on uninstall
	}
	what := map[bool]string{false: "now runs ag-hook statusline in", true: "restored in"}[remove]
	if dry {
		what = "would be changed in"
	}
	fmt.Fprintf(c.stdout, "%s: statusLine %s %s\n", id, what, c.short(r.Path))
	for _, a := range r.Actions {
		fmt.Fprintf(c.stdout, "  %s\n", a)
	}
}

// statusLineState is the agent's statusLine as ag sees it; NotInstalled
// for one without a statusLine, or on error (status reports that with
// --verbose). It never changes the exit status: the statusLine is
// optional.
func (c *cmd) statusLineState(in provider.Installer, ie provider.InstallEnv) provider.InstallState {
	sl, ok := in.(provider.StatusLiner)
	if !ok {
		return provider.NotInstalled
	}
	st, err := sl.StatusLineStatus(ie)
	if err != nil {
		return provider.NotInstalled
	}
	return st.State
}

// statusLineLine is --verbose's line about the agent's statusLine, "" for
// an agent without one.
func (c *cmd) statusLineLine(in provider.Installer, ie provider.InstallEnv) string {
	sl, ok := in.(provider.StatusLiner)
	if !ok {
		return ""
	}
	st, err := sl.StatusLineStatus(ie)
	if err != nil {
		return fmt.Sprintf("statusLine: %v", err)
	}
	line := "statusLine: "
	switch st.State {
	case provider.Installed:
		line += "runs ag-hook statusline"
	case provider.NeedsRepair:
		line += "needs repair"
	default:
		line += "not ag's (ag-hook install --agent " + in.ID() + " --statusline wraps it)"
	}
	if len(st.Reasons) > 0 {
		line += " (" + strings.Join(st.Reasons, "; ") + ")"
	}
	return line
}
