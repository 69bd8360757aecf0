package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/providers/configtx"
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
	// Every agent's files in one transaction: a file that cannot be
	// edited stops the whole run before anything is written.
	tx := configtx.New()
	type done struct {
		id     string
		res    provider.InstallResult
		sl     provider.InstallResult
		hasSL  bool
		slNote bool
	}
	var all []done
	for _, in := range ins {
		ie := provider.InstallEnv{Env: c.env, Hook: hook, DryRun: o.DryRun, Tx: tx, Version: cli.Version()}
		d := done{id: in.ID()}
		if remove {
			d.res, err = in.Uninstall(ie)
		} else {
			d.res, err = in.Install(ie)
		}
		if err != nil {
			c.prog.Errorf("%s %s: %v", verb, in.ID(), err)
			c.prog.Errorf("%s: nothing was changed", verb)
			return cli.ExitError
		}
		if o.Statusline || remove {
			sl, ok := in.(provider.StatusLiner)
			switch {
			case ok && remove:
				d.sl, err = sl.UninstallStatusLine(ie)
				d.hasSL = true
			case ok:
				d.sl, err = sl.InstallStatusLine(ie)
				d.hasSL = true
			case !remove:
				d.slNote = true
			}
			if err != nil {
				c.prog.Errorf("%s %s: statusLine: %v", verb, in.ID(), err)
				c.prog.Errorf("%s: nothing was changed", verb)
				return cli.ExitError
			}
		}
		all = append(all, d)
	}
	changes := tx.Changes()
	if !o.DryRun {
		if changes, err = tx.Commit(); err != nil {
			c.prog.Errorf("%s: %v", verb, err)
			return cli.ExitError
		}
	}
	backups := map[string]configtx.Change{}
	for _, ch := range changes {
		backups[ch.Path] = ch
	}
	for _, d := range all {
		c.report(d.id, verb, d.res, o.DryRun, backups)
		if d.slNote {
			fmt.Fprintf(c.stdout, "%s: no statusLine command to wrap (--statusline skipped)\n", d.id)
		}
		if d.hasSL {
			c.reportStatusLine(d.id, d.sl, remove, o.DryRun, backups)
		}
	}
	if !remove {
		c.warnHook(hook)
	}
	return cli.ExitOK
}

// backupNote says where the file's previous version is, "" if nowhere.
func backupNote(path string, dry bool, backups map[string]configtx.Change) string {
	ch, ok := backups[path]
	switch {
	case !ok || ch.Backup == "" || dry:
		return ""
	case ch.Fresh:
		return "; the original is kept in " + ch.Backup
	}
	return "; the original from before ag is still in " + ch.Backup
}

// warnHook says so when hooks running hook will break (hookpath.go).
func (c *cmd) warnHook(hook string) {
	if w := hookWarning(hook, c.env); w != "" {
		fmt.Fprintln(c.stdout, "warning: "+w)
	}
}

// report says what install/uninstall did, for people.
func (c *cmd) report(id, verb string, res provider.InstallResult, dry bool, backups map[string]configtx.Change) {
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
	fmt.Fprintf(c.stdout, "%s\n", backupNote(res.Path, dry, backups))
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
		st, err := in.Status(provider.InstallEnv{Env: c.env, Hook: hook, Version: cli.Version()})
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
