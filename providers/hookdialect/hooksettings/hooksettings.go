// Package hooksettings installs a hook dialect's handlers into its agent's
// settings file: the "hooks" object of Claude Code's settings.json, and of
// every agent that copied it (Qwen Code, Factory Droid). The edit is
// hookjson's: structural, atomic, backed up, all-or-nothing through the
// install's transaction, byte-for-byte undone, refused on a file it cannot
// parse; it touches only the handlers that run `ag-hook <agent>`, which
// print nothing, so an empty answer never decides anything.
package hooksettings

import (
	"path/filepath"

	"github.com/agwatch/ag/providers/hookdialect"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// Installer edits the settings file of D's agent. A provider embeds it
// for provider.Installer.
type Installer struct{ D *hookdialect.Dialect }

// ConfigPath is the settings file: File in $ConfigDirEnv when that is
// set, else in Dir under HOME.
func (in Installer) ConfigPath(env provider.Env) string {
	c := &in.D.Install
	dir := ""
	if c.ConfigDirEnv != "" {
		dir = env(c.ConfigDirEnv)
	}
	if dir == "" {
		dir = filepath.Join(env("HOME"), c.Dir)
	}
	return filepath.Join(dir, c.File)
}

// Spec is the install for the ag-hook at hook. The agents run a command
// string through a shell, so the path is single-quoted: spaces survive.
func (in Installer) Spec(hook string) *hookjson.Spec {
	c := &in.D.Install
	entries := make([]hookjson.Entry, len(c.Entries))
	for i, e := range c.Entries {
		entries[i] = hookjson.Entry{Event: e.Event, Matcher: e.Matcher}
	}
	return &hookjson.Spec{
		Entries: entries,
		Command: hookjson.Quote(hook) + " " + in.D.Agent,
		Timeout: c.TimeoutValue(),
		Owns:    hookjson.OwnedBy("ag-hook", in.D.Agent),
		Format:  hookjson.Format{Comments: c.Comments, Settings: c.Settings},
	}
}

// Install adds ag's hooks to the settings file.
func (in Installer) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	return hookjson.Install(ie, in.ConfigPath(ie.Env), in.Spec(ie.Hook))
}

// Uninstall removes ag's hooks (and nothing else) from the settings file.
func (in Installer) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return hookjson.Uninstall(ie, in.ConfigPath(ie.Env), in.Spec(ie.Hook))
}

// Status reads the settings file.
func (in Installer) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	return hookjson.Status(in.ConfigPath(ie.Env), in.Spec(ie.Hook))
}
