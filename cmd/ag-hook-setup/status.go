package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/provider"
)

// status prints one short line per agent on this machine: installed,
// not installed, needs repair (what, in a few words), not trusted (what to
// do); --verbose adds every reason, the files and their backups. An agent
// that is not on the machine gets no line unless named or --verbose.
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
	// Named agents must each be installed and working. With no --agent,
	// one never installed for is no fault: 0 needs at least one installed
	// and none in need of repair or trust.
	named := len(o.Agent) > 0
	code, installed, shown, used := cli.ExitOK, 0, 0, false
	for _, in := range ins {
		ie := provider.InstallEnv{Env: c.env, Hook: hook, Version: cli.Version()}
		st, err := in.Status(ie)
		if err != nil {
			c.prog.Errorf("status %s: %v", in.ID(), err)
			code = cli.ExitError
			continue
		}
		if _, here := c.present(in); !here && st.State == provider.NotInstalled && !named && !o.Verbose {
			continue // not on this machine: nothing to say
		}
		shown++
		if st.State != provider.NotInstalled {
			used = true
		}
		fmt.Fprintln(c.stdout, c.statusLine(in, st, ie))
		if o.Verbose {
			c.statusDetails(in, st, ie)
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
		c.warnSelf(hook)
	}
	if shown == 0 && code == cli.ExitOK {
		fmt.Fprintf(c.stdout, "no agent ag installs for is on this machine (%s)\n", strings.Join(hookedIDs(), ", "))
	}
	if code == cli.ExitOK && installed == 0 {
		code = cli.ExitNoMatch
	}
	return code
}

// statusLine is one agent's line.
func (c *cmd) statusLine(in provider.Installer, st provider.InstallStatus, ie provider.InstallEnv) string {
	id, path := in.ID(), c.short(st.Path)
	line := id + ": "
	switch st.State {
	case provider.Installed:
		line += "installed in " + path
		if sl := c.statusLineState(in, ie); sl == provider.Installed {
			line += ", with the statusLine"
		}
		if b := backupOf(st.Path); b != "" {
			line += " (your file before ag: " + filepath.Base(b) + ")"
		}
	case provider.NotInstalled:
		if len(st.Reasons) > 0 { // something is in the way
			line += "not installed (" + path + "): " + strings.Join(st.Reasons, "; ")
			break
		}
		line += "not installed (ag-hook install --agent " + id + " adds the hooks to " + path + ")"
	case provider.NeedsRepair:
		line += "needs repair: " + summary(st.Reasons)
		if slices.ContainsFunc(st.Reasons, func(r string) bool { return strings.Contains(r, "(missing)") }) {
			// Every hook of the agent fails now: say both ways out.
			line += " (the ag-hook they run is gone: ag-hook install --agent " + id + " from an installed ag-hook, or ag-hook uninstall --agent " + id + ")"
		} else {
			line += " (ag-hook install --agent " + id + " repairs it)"
		}
	case provider.Untrusted:
		line += "installed, but " + strings.Join(st.Reasons, "; ")
		if st.Hint != "" {
			line += ": " + st.Hint
		}
	}
	if sl := c.statusLineState(in, ie); sl == provider.NeedsRepair {
		line += "; its statusLine needs repair (see --verbose)"
	}
	return line
}

// summary is the reasons in a few words: the same reason for several
// events is said once, the most common first ("runs '/old/ag-hook' claude
// (missing), want '/new/ag-hook' claude (15 hooks)"), the rest counted.
func summary(reasons []string) string {
	type group struct {
		why string
		n   int
	}
	var groups []group
	for _, r := range reasons {
		why := r
		if ev, rest, ok := strings.Cut(r, ": "); ok && !strings.Contains(ev, " ") {
			why = rest // "Event: why"
		}
		found := false
		for i := range groups {
			if groups[i].why == why {
				groups[i].n++
				found = true
			}
		}
		if !found {
			groups = append(groups, group{why, 1})
		}
	}
	if len(groups) == 0 {
		return "it is not what install writes"
	}
	slices.SortStableFunc(groups, func(a, b group) int { return b.n - a.n })
	first := groups[0].why + " (" + plural(groups[0].n, "hook") + ")"
	if groups[0].n == 1 {
		for _, r := range reasons {
			if strings.HasSuffix(r, groups[0].why) {
				first = r // one event: name it
				break
			}
		}
	}
	if rest := len(reasons) - groups[0].n; rest > 0 {
		first += fmt.Sprintf(", and %d more", rest)
	}
	return first
}

// statusDetails is --verbose: the files, the backups, every reason, the
// statusLine.
func (c *cmd) statusDetails(in provider.Installer, st provider.InstallStatus, ie provider.InstallEnv) {
	out := func(format string, a ...any) { fmt.Fprintf(c.stdout, "  "+format+"\n", a...) }
	out("config: %s", st.Path)
	if b := backupOf(st.Path); b != "" {
		out("backup: %s (the file as it was before ag first changed it)", b)
	}
	if _, here := c.present(in); !here {
		out("%s does not seem to be on this machine", in.Name())
	}
	for _, r := range st.Reasons {
		out("- %s", r)
	}
	if st.Hint != "" {
		out("to do: %s", st.Hint)
	}
	if sl := c.statusLineLine(in, ie); sl != "" {
		out("%s", sl)
	}
}

// backupOf is path's backup when there is one.
func backupOf(path string) string {
	b := path + configtx.BackupSuffix
	if _, err := os.Lstat(b); err != nil {
		return ""
	}
	return b
}
