package main

import (
	"fmt"
	"strings"

	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/provider"
)

// reportStatusLine says what wrapping (remove false) or restoring (remove
// true) the agent's statusLine did.
func (c *cmd) reportStatusLine(id string, r provider.InstallResult, remove, dry bool, backups map[string]configtx.Change) {
	switch {
	case !r.Changed && !remove:
		fmt.Fprintf(c.stdout, "%s: statusLine already runs ag-hook statusline in %s\n", id, r.Path)
		return
	case !r.Changed:
		return // not ours: nothing to say on uninstall
	}
	what := map[bool]string{false: "now runs ag-hook statusline in", true: "restored in"}[remove]
	if dry {
		what = "would be changed in"
	}
	fmt.Fprintf(c.stdout, "%s: statusLine %s %s%s\n", id, what, r.Path, backupNote(r.Path, dry, backups))
	for _, a := range r.Actions {
		fmt.Fprintf(c.stdout, "  %s\n", a)
	}
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
