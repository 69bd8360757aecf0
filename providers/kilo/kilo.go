// Package kilo is the Kilo CLI provider (@kilocode/cli), a fork of
// OpenCode that kept its plugin bus, its SQLite store and its TUI: the
// plugin, the hook mapping, the store reader and the pane states are
// OpenCode's, with Kilo's directories, id and process. What differs:
// detection (a node launcher and its native child `.kilo`), a rejection
// that always asks what to do differently first (Escape, then Enter), a
// question picker whose rows go by digit, and a plan agent whose "Ready
// to implement?" only the screen shows.
package kilo

import (
	"path/filepath"

	"github.com/agwatch/ag/contrib"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/internal/jsfile"
	"github.com/agwatch/ag/providers/kilo/kilohook"
	"github.com/agwatch/ag/providers/opencode"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Kilo CLI's agent id in events.
const ID = kilohook.ID

// Provider is Kilo CLI.
type Provider struct {
	jsfile.Installer // the plugin file (see spec)
}

// New returns the Kilo provider.
func New() *Provider { return &Provider{jsfile.Installer{Spec: spec}} }

var (
	_ provider.Hooked       = (*Provider)(nil)
	_ provider.Installer    = (*Provider)(nil)
	_ provider.ManySessions = (*Provider)(nil)
	_ provider.ProcDetector = (*Provider)(nil)
	_ provider.Keyed        = (*Provider)(nil)
	_ provider.Commanded    = (*Provider)(nil)
	_ provider.Stores       = (*Provider)(nil)
)

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Kilo CLI" }

// ManySessionsPerProcess: OpenCode's server, many sessions.
func (*Provider) ManySessionsPerProcess() bool { return true }

func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return kilohook.Mapper{}.MapHook(raw, hc)
}

func (*Provider) ProcessNames() []string { return kilohook.Mapper{}.ProcessNames() }

// ConfigDir is Kilo's global config directory: $XDG_CONFIG_HOME/kilo,
// else ~/.config/kilo. It loads plugins from its plugins/ (and plugin/).
func ConfigDir(env paths.Env) string { return opencode.ConfigDirOf(env, "kilo") }

// DataDir is where Kilo keeps its database and logs: $XDG_DATA_HOME/kilo,
// else ~/.local/share/kilo.
func DataDir(env paths.Env) string { return opencode.DataDirOf(env, "kilo") }

// DBPath is Kilo's SQLite database: $KILO_DB (relative to the data
// directory), else kilo.db there — the release channel's; a build of
// another channel keeps kilo-<channel>.db, which ag does not read.
func DBPath(env paths.Env) string { return opencode.DBPathOf(env, "kilo", "KILO_DB") }

// spec is the plugin file ag installs: OpenCode's, for Kilo.
func spec(env paths.Env) jsfile.Spec {
	return jsfile.Spec{
		Path: filepath.Join(ConfigDir(env), "plugins", "ag.js"), Source: contrib.OpenCodePlugin,
		Kind: "ag-kilo-plugin", Agent: ID, Agent1: "Kilo",
		Head: "— reports Kilo's sessions to ag (https://github.com/agwatch/ag); `ag-hook uninstall --agent kilo` removes this file",
		// Verified on 7.7.7: with a plugin in its config directory Kilo
		// npm-installs @kilocode/plugin there at start and waits for it;
		// the registry has no @kilocode/plugin@7.7.7, so online it fails
		// in seconds and goes on.
		Note: "with a plugin in " + ConfigDir(env) + ", Kilo npm-installs @kilocode/plugin there when it starts and waits for it (offline, until npm gives up)",
	}
}

// StorePaths: Kilo keeps every session in one SQLite database.
func (*Provider) StorePaths(env provider.Env) []string { return []string{DBPath(env)} }

// NewStoreReader reads meters from the database at path: OpenCode's
// reader (the schema is OpenCode's), with windows from Kilo's config and
// its model list.
func (*Provider) NewStoreReader(path string) provider.StoreReader {
	return NewStore(path, paths.OS())
}

// NewStore is the reader of the database at path, with windows from the
// config env names.
func NewStore(path string, env paths.Env) *opencode.Store {
	dir := ConfigDir(env)
	return opencode.NewFamilyStore(ID, path, opencode.Windows(
		filepath.Join(dir, "kilo.json"), filepath.Join(dir, "kilo.jsonc"),
		filepath.Join(dir, "opencode.json"), filepath.Join(dir, "opencode.jsonc"), filepath.Join(dir, "config.json"),
		filepath.Join(opencode.CacheHome(env), "kilo", "models.json")))
}

// ProcRules: npm's bin is `node …/node_modules/.bin/kilo` (a launcher:
// node is an interpreter and its script's name says kilo), whose child is
// the native binary `…/@kilocode/cli/bin/.kilo`, the agent reported.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:                []string{"kilo", ".kilo", "kilocode"},
		Paths:                []string{"/@kilocode/cli/", "/@kilocode/cli-"},
		LauncherInterpreters: []string{"node"},
	}
}

// Commands, from `kilo --help` (7.7.7): `-s <id>` continues a session
// (its exit prints "kilo -s ses_…"); `--prompt` starts the TUI with the
// prompt submitted (a positional is a project path, `kilo run` one turn
// that exits); `-s <id> --fork` continues a copy under a new id, the
// original untouched (verified: the copy took a prompt, the original's
// messages stayed as they were) — with --prompt as well, 7.7.7 sent the
// prompt to a third, empty session, so the fork takes none; -m takes
// provider/model.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "kilo",
		Resume:    "{bin} -s '{id}'",
		Spawn:     "{bin} --prompt '{prompt}'",
		Fork:      "{bin} -s '{id}' --fork",
		ModelFlag: "-m",
	}
}
