package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/provider"
)

// Actions an installer reports, by their first character: "+" a hook
// added, "-" a hook removed (counted, and listed with --verbose or
// --dry-run), "~" another setting changed and "!" a note for the user
// (always shown).

// install runs `install` (remove false) or `uninstall` (remove true).
func (c *cmd) install(o installOpts, remove bool) int {
	verb := "install"
	if remove {
		verb = "uninstall"
	}
	switch {
	case o.all && len(o.Agent) > 0:
		c.prog.Errorf("uninstall: --all or --agent, not both")
		return cli.ExitError
	case len(o.Agent) == 0 && !o.all:
		c.prog.Errorf("%s: --agent is required (one of: %s)%s", verb, strings.Join(hookedIDs(), ", "),
			map[bool]string{true: ", or --all", false: ""}[remove])
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
	if o.all {
		if ins, err = c.withAg(ins, hook); err != nil {
			c.prog.Errorf("uninstall: %v; nothing was changed", err)
			return cli.ExitError
		}
		if len(ins) == 0 {
			fmt.Fprintln(c.stdout, "no agent's config has anything of ag's")
		}
	}
	if !remove {
		if err := checkHook(hook); err != nil {
			c.prog.Errorf("install: --hook %s: %v", hook, err)
			return cli.ExitError
		}
		// An agent that is not on this machine: its config folder would be
		// made for nothing. Said, and left alone, unless asked.
		for _, in := range ins {
			if where, ok := c.present(in); !ok && !o.Force {
				c.prog.Errorf("install: %s does not seem to be installed here (%s); give --force to add its hooks anyway", in.Name(), where)
				return cli.ExitNoMatch
			}
		}
	}
	// Every agent's files in one transaction: a file that cannot be
	// edited stops the whole run before anything is written.
	tx := configtx.New()
	type done struct {
		in     provider.Installer
		res    provider.InstallResult
		sl     provider.InstallResult
		hasSL  bool
		slNote bool
	}
	var all []done
	for _, in := range ins {
		ie := provider.InstallEnv{Env: c.env, Hook: hook, DryRun: o.DryRun, Tx: tx, Version: cli.Version()}
		d := done{in: in}
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
		if !remove {
			c.recordMade(tx.Made())
		}
	}
	list := o.Verbose || o.DryRun
	for _, d := range all {
		c.report(d.in.ID(), verb, d.res, o.DryRun, list)
		if d.slNote {
			fmt.Fprintf(c.stdout, "%s: no statusLine command to wrap (--statusline skipped)\n", d.in.ID())
		}
		if d.hasSL {
			c.reportStatusLine(d.in.ID(), d.sl, remove, o.DryRun)
		}
	}
	switch {
	case remove && !o.DryRun:
		c.tidy(changes, ins)
	case !remove:
		c.reportBackups(changes, o.DryRun)
		c.warnHook(hook)
	}
	return cli.ExitOK
}

// reportBackups says which file is which: each backup holds its file as it
// was before ag first changed it.
func (c *cmd) reportBackups(changes []configtx.Change, dry bool) {
	var kept []string
	for _, ch := range changes {
		if ch.Backup != "" {
			kept = append(kept, c.short(ch.Backup))
		}
	}
	if len(kept) == 0 {
		return
	}
	verb := "kept"
	if dry {
		verb = "would keep"
	}
	fmt.Fprintf(c.stdout, "%s %s: each file as it was before ag first changed it\n", verb, strings.Join(kept, ", "))
}

// warnHook says so when hooks running hook will break (hookpath.go).
func (c *cmd) warnHook(hook string) {
	if w := hookWarning(hook, c.env); w != "" {
		fmt.Fprintln(c.stdout, "warning: hooks run "+w)
	}
}

// warnSelf is status's warning: hook is the ag-hook status compares with
// (this one), not one the hooks run, so it is named as such.
func (c *cmd) warnSelf(hook string) {
	if w := hookWarning(hook, c.env); w != "" {
		fmt.Fprintln(c.stdout, "warning: this ag-hook is "+w)
	}
}

// report says what install/uninstall did, for people: one line per agent,
// the settings it changed and its notes; each hook with list.
func (c *cmd) report(id, verb string, res provider.InstallResult, dry, list bool) {
	switch {
	case !res.Changed && verb == "install":
		fmt.Fprintf(c.stdout, "%s: already installed in %s\n", id, c.short(res.Path))
		return
	case !res.Changed:
		fmt.Fprintf(c.stdout, "%s: no ag hooks in %s\n", id, c.short(res.Path))
		return
	}
	what := map[string]string{"install": "installed in", "uninstall": "removed from"}[verb]
	if dry {
		what = "would be " + what
	}
	added, removed := 0, 0
	for _, a := range res.Actions {
		switch a[0] {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	var counts []string
	if added > 0 {
		counts = append(counts, plural(added, "hook")+" added")
	}
	if removed > 0 {
		counts = append(counts, plural(removed, "hook")+" removed")
	}
	line := fmt.Sprintf("%s: hooks %s %s", id, what, c.short(res.Path))
	if len(counts) > 0 {
		line += " (" + strings.Join(counts, ", ") + ")"
	}
	fmt.Fprintln(c.stdout, line)
	for _, a := range res.Actions {
		if list || a[0] == '~' || a[0] == '!' {
			fmt.Fprintf(c.stdout, "  %s\n", a)
		}
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// hookPath is the absolute ag-hook path to write into configs: --hook,
// else the ag-hook that runs this.
func (c *cmd) hookPath(flag string) (string, error) {
	if flag == "" {
		return c.self()
	}
	return filepath.Abs(flag)
}

// checkHook refuses an ag-hook path that would give the agent a command
// that cannot run, or one status and uninstall would not know as ag's.
func checkHook(path string) error {
	if filepath.Base(path) != "ag-hook" {
		return fmt.Errorf("not an ag-hook (status and uninstall know ag's hooks by that name)")
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("no such file: the agent would run a command that is not there")
	case !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0:
		return fmt.Errorf("not an executable file: the agent could not run it")
	}
	return nil
}

// present reports whether the agent seems to be on this machine: its
// config folder exists or a program with its name is on $PATH. where says
// what was looked at, for the message when it is not.
func (c *cmd) present(in provider.Installer) (where string, ok bool) {
	// The config file's folder, or the one above it (an agent's plugin
	// folder is made only for plugins: ~/.config/opencode/plugins), but not
	// the home folder or ~/.config themselves, which every machine has.
	dir := filepath.Dir(in.ConfigPath(c.env))
	common := map[string]bool{filepath.Clean(c.env("HOME")): true, filepath.Join(c.env("HOME"), ".config"): true, "/": true}
	if x := paths.Dir(c.env, "XDG_CONFIG_HOME"); x != "" {
		common[x] = true
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if common[d] {
			break
		}
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return "", true
		}
	}
	var names []string
	if d, ok := in.(provider.ProcDetector); ok {
		names = d.ProcRules().Names
	}
	for _, n := range names {
		for _, p := range filepath.SplitList(c.env("PATH")) {
			if fi, err := os.Stat(filepath.Join(p, n)); p != "" && err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return "", true
			}
		}
	}
	where = "no " + c.short(dir)
	if len(names) > 0 {
		where += ", no " + strings.Join(names, " or ") + " on $PATH"
	}
	return where, false
}

// short writes a path under $HOME as ~/…, as people read it.
func (c *cmd) short(path string) string {
	home := c.env("HOME")
	if home == "" || home == "/" {
		return path
	}
	if rel, ok := strings.CutPrefix(path, strings.TrimSuffix(home, "/")+"/"); ok {
		return "~/" + rel
	}
	return path
}
