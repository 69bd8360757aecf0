// Package opencode is the OpenCode provider: the plugin ag installs into
// OpenCode's config directory (contrib/opencode), meters from OpenCode's
// SQLite database, detection, keys and command lines. The plugin's lines
// are mapped in opencodehook, which ag-hook links alone.
//
// One OpenCode process (the TUI and its server in one native binary) hosts
// many sessions: the ones the user switches between, each of which may be
// at work, and each sub-agent's. So OpenCode is a provider.ManySessions.
package opencode

import (
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/contrib"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/internal/jsfile"
	"github.com/agwatch/ag/providers/opencode/opencodehook"
	"github.com/agwatch/ag/providers/provider"
)

// ID is OpenCode's agent id in events.
const ID = opencodehook.ID

// Provider is OpenCode.
type Provider struct {
	jsfile.Installer // the plugin file (see spec)
}

// New returns the OpenCode provider.
func New() *Provider { return &Provider{jsfile.Installer{Spec: spec}} }

var (
	_ provider.Hooked       = (*Provider)(nil)
	_ provider.Installer    = (*Provider)(nil)
	_ provider.ManySessions = (*Provider)(nil)
	_ provider.ProcDetector = (*Provider)(nil)
	_ provider.Keyed        = (*Provider)(nil)
	_ provider.Commanded    = (*Provider)(nil)
)

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "OpenCode" }

// ManySessionsPerProcess: one server, many sessions.
func (*Provider) ManySessionsPerProcess() bool { return true }

// MapHook maps the plugin's lines (see opencodehook).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return opencodehook.Mapper{}.MapHook(raw, hc)
}

// ProcessNames are OpenCode's comm names (see opencodehook).
func (*Provider) ProcessNames() []string { return opencodehook.Mapper{}.ProcessNames() }

// ConfigDir is OpenCode's global config directory: $XDG_CONFIG_HOME/opencode,
// else ~/.config/opencode. OpenCode loads plugins from its plugins/ (and
// plugin/) folder, and from a project's .opencode/ too.
func ConfigDir(env paths.Env) string { return ConfigDirOf(env, "opencode") }

// DataDir is where OpenCode keeps its database and logs:
// $XDG_DATA_HOME/opencode, else ~/.local/share/opencode.
func DataDir(env paths.Env) string { return DataDirOf(env, "opencode") }

// DBPath is OpenCode's SQLite database: $OPENCODE_DB, else opencode.db in
// the data directory.
func DBPath(env paths.Env) string { return DBPathOf(env, "opencode", "OPENCODE_DB") }

// ConfigDirOf is the config directory of an agent of the family named
// name (OpenCode's, or a fork's): $XDG_CONFIG_HOME/<name>, else
// ~/.config/<name>.
func ConfigDirOf(env paths.Env, name string) string {
	if d := env("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, name)
	}
	return filepath.Join(paths.Home(env), ".config", name)
}

// DataDirOf is its data directory: $XDG_DATA_HOME/<name>, else
// ~/.local/share/<name>.
func DataDirOf(env paths.Env, name string) string {
	if d := env("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, name)
	}
	return filepath.Join(paths.Home(env), ".local", "share", name)
}

// DBPathOf is its database: $<envVar> (a relative path under the data
// directory), else <name>.db in the data directory.
func DBPathOf(env paths.Env, name, envVar string) string {
	if p := env(envVar); p != "" {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(DataDirOf(env, name), p)
	}
	return filepath.Join(DataDirOf(env, name), name+".db")
}

// spec is the plugin file ag installs.
func spec(env paths.Env) jsfile.Spec {
	return jsfile.Spec{
		Path: filepath.Join(ConfigDir(env), "plugins", "ag.js"), Source: contrib.OpenCodePlugin,
		Kind: "ag-opencode-plugin", Agent: ID, Agent1: "OpenCode",
		// Verified on 1.18.33: with any plugin in its config directory
		// (whatever it imports) OpenCode installs @opencode-ai/plugin there
		// with npm at start and waits for it.
		Note: "with a plugin in " + ConfigDir(env) + ", OpenCode installs @opencode-ai/plugin there with npm when it starts (once; offline it waits for npm to give up)",
	}
}

// ProcRules: the npm package's bin (`…/node_modules/.bin/opencode`, a
// link to opencode-ai/bin/opencode.exe) is the native Bun-compiled binary
// itself, one process with no children, comm "opencode".
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names: []string{"opencode", "opencode.exe"},
		Paths: []string{"/opencode-ai/bin/", "/opencode-linux-", "/opencode-darwin-"},
	}
}

// Commands: `opencode -s <id>` reopens a session in the TUI (its exit
// prints "Continue  opencode -s ses_…"); `opencode --prompt '<prompt>'`
// starts the TUI with the prompt submitted (a positional is a project
// path, and `opencode run` one turn that exits). -m takes provider/model.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "opencode",
		Resume:    "{bin} -s '{id}'",
		Spawn:     "{bin} --prompt '{prompt}'",
		ModelFlag: "-m",
	}
}

// UnsafeReply refuses a reply that starts with "!": shell mode even after
// spaces, where Enter runs it (OpenCode, and Kilo, which kept the composer).
func UnsafeReply(text string) string {
	if strings.HasPrefix(strings.TrimLeft(text, " \t\r\n\v\f\u00a0\u3000"), "!") {
		return "a reply starting with ! runs as a shell command in OpenCode"
	}
	return ""
}
