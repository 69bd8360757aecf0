// Package crush is the Crush (charmbracelet/crush, @charmland/crush)
// provider: hook install into crush.json (its one hook, PreToolUse), the
// per-project SQLite stores (.crush/crush.db, listed in projects.json),
// detection data, pane rules for its permission dialog, key maps and the
// resume template. The hook payload mapping is in crushhook, which ag-hook
// links alone.
//
// Crush cannot be installed here (its npm package downloads the binary
// from GitHub at install time, and the Go module proxy refuses the
// module): everything in this package was written from its public source
// and documentation (a snapshot after v0.90.0) and proven on fixtures;
// doc/agents/crush.md says which parts.
package crush

import (
	"path/filepath"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/crush/crushhook"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Crush's agent id in events.
const ID = crushhook.ID

// Provider is Crush.
type Provider struct{}

// New returns the Crush provider.
func New() *Provider { return &Provider{} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Crush" }

var _ provider.OneSession = (*Provider)(nil)

// OneSessionPerProcess: a crush TUI shows one session at a time (ctrl+s
// switches, ctrl+n starts another).
func (*Provider) OneSessionPerProcess() bool { return true }

// ConfigDir is where Crush's global crush.json lives: $CRUSH_GLOBAL_CONFIG,
// else $XDG_CONFIG_HOME/crush, else ~/.config/crush.
func ConfigDir(env paths.Env) string {
	if d := env("CRUSH_GLOBAL_CONFIG"); d != "" {
		return d
	}
	if x := env("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "crush")
	}
	return filepath.Join(paths.Home(env), ".config", "crush")
}

// DataDir is Crush's global data folder, which holds projects.json:
// $CRUSH_GLOBAL_DATA, else $XDG_DATA_HOME/crush, else ~/.local/share/crush.
func DataDir(env paths.Env) string {
	if d := env("CRUSH_GLOBAL_DATA"); d != "" {
		return d
	}
	if x := env("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "crush")
	}
	return filepath.Join(paths.Home(env), ".local", "share", "crush")
}
