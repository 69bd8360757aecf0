package main

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/provider"
)

// An uninstall leaves nothing of ag's behind: besides the hooks, the
// backups that are now the same as their files, and the config folders
// ag's install made that nothing else has filled since. Which folders ag
// made is written down at install, in the state folder: an agent's own
// folder that was there before ag must never go.

// madeFile lists the config folders ag's installs created, one a line.
func (c *cmd) madeFile() string { return filepath.Join(paths.StateDir(c.env), "made-dirs") }

// recordMade adds the folders an install created to madeFile.
func (c *cmd) recordMade(dirs []string) {
	if len(dirs) == 0 {
		return
	}
	have := c.readMade()
	for _, d := range dirs {
		if !slices.Contains(have, d) {
			have = append(have, d)
		}
	}
	if err := c.writeMade(have); err != nil {
		// Only the tidying of a later uninstall is lost: said, not fatal.
		c.prog.Errorf("install: %v (an uninstall will leave %s)", err, strings.Join(dirs, ", "))
	}
}

func (c *cmd) readMade() []string {
	b, err := os.ReadFile(c.madeFile())
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := sc.Text(); filepath.IsAbs(l) {
			out = append(out, filepath.Clean(l))
		}
	}
	return out
}

func (c *cmd) writeMade(dirs []string) error {
	f := c.madeFile()
	if len(dirs) == 0 {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return err
	}
	tmp := f + ".new"
	if err := os.WriteFile(tmp, []byte(strings.Join(dirs, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, f)
}

// tidy runs after an uninstall was committed: it removes each backup whose
// file is now byte for byte what it holds, and the folders ag made that
// are empty again (deepest first), and says what it removed.
func (c *cmd) tidy(changes []configtx.Change, ins []provider.Installer) {
	files := map[string]bool{}
	for _, ch := range changes {
		files[ch.Path] = true
	}
	for _, in := range ins {
		files[in.ConfigPath(c.env)] = true
	}
	var backups, dirs []string
	for _, f := range slices.Sorted(maps.Keys(files)) {
		b := f + configtx.BackupSuffix
		orig, err1 := os.ReadFile(b)
		now, err2 := os.ReadFile(f)
		if err1 == nil && err2 == nil && bytes.Equal(orig, now) && os.Remove(b) == nil {
			backups = append(backups, c.short(b))
		}
	}
	made := c.readMade()
	// Deepest first: a folder ag made inside another it made.
	slices.SortFunc(made, func(a, b string) int { return len(b) - len(a) })
	var keep []string
	for _, d := range made {
		if _, err := os.Stat(d); os.IsNotExist(err) {
			continue
		}
		if os.Remove(d) == nil { // only an empty folder goes
			dirs = append(dirs, c.short(d)+"/")
			continue
		}
		keep = append(keep, d)
	}
	if err := c.writeMade(keep); err != nil {
		c.prog.Errorf("uninstall: %v", err)
	}
	if len(backups) > 0 {
		fmt.Fprintf(c.stdout, "removed %s: the file is as it was before ag again\n", strings.Join(backups, ", "))
	}
	switch len(dirs) {
	case 0:
	case 1:
		fmt.Fprintf(c.stdout, "removed %s: ag made it for its hooks, and it is empty again\n", dirs[0])
	default:
		fmt.Fprintf(c.stdout, "removed %s: ag made them for its hooks, and they are empty again\n", strings.Join(dirs, ", "))
	}
}

// withAg is, of ins, the agents whose config holds anything of ag's (hooks
// in any state, or Claude's statusLine): what uninstall --all takes out.
// An agent whose config cannot be read is an error: ag cannot say it is
// clean.
func (c *cmd) withAg(ins []provider.Installer, hook string) ([]provider.Installer, error) {
	var out []provider.Installer
	for _, in := range ins {
		ie := provider.InstallEnv{Env: c.env, Hook: hook, Version: cli.Version()}
		st, err := in.Status(ie)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", in.ID(), err)
		}
		if st.State != provider.NotInstalled || c.statusLineState(in, ie) != provider.NotInstalled {
			out = append(out, in)
		}
	}
	return out, nil
}
