package cline

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/contrib"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/cline/clinehook"
	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/internal/jsfile"
	"github.com/agwatch/ag/providers/provider"
)

// Install writes one script per event ag reads, <hooks dir>/<Event>.sh,
// each ag's by its sentinel line (contrib/cline/hook.sh). Cline runs every
// file named after an event — TaskStart, TaskStart.sh, taskstart.py, … —
// so a user's own hook of an event (Cline's documented name has no
// extension) runs beside ag's and is never touched. A file of ag's name
// that is not ag's stops the install, all of it, naming the file.
//
// The scripts need no execute bit: Cline runs a hook through the
// interpreter its "#!" line names (/bin/sh). Written 0600.

// hookFiles are the files ag owns, one per event, in env.
func hookFiles(env paths.Env) []jsfile.Spec {
	dir := HooksDir(env)
	specs := make([]jsfile.Spec, len(clinehook.Hooks))
	for i, ev := range clinehook.Hooks {
		specs[i] = jsfile.Spec{
			Path: filepath.Join(dir, ev+".sh"), Source: contrib.ClineHook, Shell: true,
			Kind: "ag-cline-hook", Agent: ID, Agent1: "Cline", Vars: map[string]string{"EVENT": ev},
		}
	}
	return specs
}

// ConfigPath is the hooks directory.
func (*Provider) ConfigPath(env provider.Env) string { return HooksDir(env) }

// Install writes every hook file that is not already what it should be,
// all or none.
func (*Provider) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	return eachFile(ie, jsfile.Install, notes)
}

// eachFile does step to every hook file in one transaction; more are the
// lines to add when something changed.
func eachFile(ie provider.InstallEnv, step func(provider.InstallEnv, jsfile.Spec) (provider.InstallResult, error), more func(paths.Env) []string) (provider.InstallResult, error) {
	return ie.Edit(func(tx *configtx.Tx) (provider.InstallResult, error) {
		res := provider.InstallResult{Path: HooksDir(ie.Env)}
		sub := ie
		sub.Tx = tx
		for _, s := range hookFiles(ie.Env) {
			r, err := step(sub, s)
			if err != nil {
				return res, err
			}
			if r.Changed {
				res.Changed = true
				res.Actions = append(res.Actions, r.Actions[0])
			}
		}
		if res.Changed {
			res.Actions = append(res.Actions, more(ie.Env)...)
		}
		return res, nil
	})
}

// notes are what the user should know after an install: a running Cline
// reads its hooks directory again for every new session, and approves
// every call by itself while auto-approve is on; the user's own hook files
// run beside ag's.
func notes(env paths.Env) []string {
	out := []string{"! a running Cline finds the hooks at its next session (/clear) or start"}
	if autoApprove(env) {
		out = append(out, `! Cline's tool auto-approve is on (its default): Cline asks before no call, so no call waits. Shift+Tab in Cline turns it off ("toolAutoApprove": false)`)
	}
	mine := yours(env)
	if len(mine) > 0 {
		out = append(out, "! your own hooks run beside ag's: "+strings.Join(mine, ", "))
	}
	return out
}

// yours are the user's own files for the events ag hooks, in the hooks
// directory.
func yours(env paths.Env) []string {
	ents, err := os.ReadDir(HooksDir(env))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		ext := filepath.Ext(name)
		base := strings.TrimSuffix(name, ext)
		for _, ev := range clinehook.Hooks {
			if strings.EqualFold(base, ev) && name != ev+".sh" {
				out = append(out, name)
			}
		}
	}
	return out
}

// autoApprove reports whether Cline approves calls by itself: its global
// settings' "toolAutoApprove" unless false (the default is on).
func autoApprove(env paths.Env) bool {
	b, err := os.ReadFile(SettingsPath(env))
	if err != nil {
		return true
	}
	return !strings.Contains(strings.ReplaceAll(string(b), " ", ""), `"toolAutoApprove":false`)
}

// SettingsPath is Cline's global settings file:
// $CLINE_GLOBAL_SETTINGS_PATH, else <DataDir>/settings/global-settings.json.
func SettingsPath(env paths.Env) string {
	if p := env("CLINE_GLOBAL_SETTINGS_PATH"); p != "" && filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(DataDir(env), "settings", "global-settings.json")
}

// Uninstall deletes ag's hook files and no other.
func (*Provider) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return eachFile(ie, jsfile.Uninstall, func(paths.Env) []string {
		return []string{"! a running Cline runs the hooks it found until its next session"}
	})
}

// Status is installed when every file is ag's and current, not installed
// when none is ag's, else needs repair with what is wrong with each.
func (*Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	st := provider.InstallStatus{Path: HooksDir(ie.Env)}
	n := 0
	for _, s := range hookFiles(ie.Env) {
		fs, err := jsfile.Status(ie, s)
		if err != nil {
			return st, err
		}
		name := filepath.Base(s.Path)
		switch {
		case fs.State == provider.Installed:
			n++
		case fs.State == provider.NotInstalled && len(fs.Reasons) == 0:
			st.Reasons = append(st.Reasons, name+": missing")
		default:
			if fs.State != provider.NotInstalled {
				n++
			}
			for _, r := range fs.Reasons {
				st.Reasons = append(st.Reasons, name+": "+r)
			}
		}
	}
	switch {
	case n == len(clinehook.Hooks) && len(st.Reasons) == 0:
		st.State = provider.Installed
	case n == 0:
		st.State = provider.NotInstalled
		if !hasForeign(st.Reasons) {
			st.Reasons = nil
		}
	default:
		st.State = provider.NeedsRepair
	}
	return st, nil
}

func hasForeign(reasons []string) bool {
	for _, r := range reasons {
		if strings.Contains(r, "not ag's") {
			return true
		}
	}
	return false
}
