// Package codex is the OpenAI Codex CLI provider: hook install (hooks.json
// plus the hooks feature flag in config.toml), rollout parsing with Codex's
// own context arithmetic, detection data, key maps and resume/spawn
// templates. The hook payload mapping is in codexhook, which ag-hook links
// alone.
//
// Codex keeps everything under $CODEX_HOME (default ~/.codex): config.toml,
// hooks.json, and one rollout per thread in sessions/YYYY/MM/DD/.
package codex

import (
	"path/filepath"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/codex/codexhook"
)

// ID is Codex's agent id in events.
const ID = codexhook.ID

// Provider is the Codex CLI.
type Provider struct{}

// New returns the Codex provider.
func New() *Provider { return &Provider{} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Codex" }

// OneSessionPerProcess: a TUI runs one thread at a time (/new moves it on);
// the shared background server's hooks name no process at all.
func (*Provider) OneSessionPerProcess() bool { return true }

// Home is $CODEX_HOME, else ~/.codex.
func Home(env paths.Env) string {
	if d := env("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(paths.Home(env), ".codex")
}

// SessionsDir is where Codex writes rollouts: $CODEX_HOME/sessions.
func SessionsDir(env paths.Env) string { return filepath.Join(Home(env), "sessions") }

// HooksFile is the user-level hooks.json Codex reads.
func HooksFile(env paths.Env) string { return filepath.Join(Home(env), "hooks.json") }

// ConfigFile is Codex's config.toml.
func ConfigFile(env paths.Env) string { return filepath.Join(Home(env), "config.toml") }
