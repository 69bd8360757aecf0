// Package copilot is the GitHub Copilot CLI provider: hook install (the
// hooks of settings.json, Copilot's own flat schema with camelCase
// events), the session log (session-state/<id>/events.jsonl, the only
// agent log that records an approval and its answer), detection data, key
// maps and resume/spawn templates. The hook payload mapping is in
// copilothook, which ag-hook links alone.
//
// Copilot keeps everything under $COPILOT_HOME (default ~/.copilot):
// settings.json (user settings, hooks included), config.json (state it
// manages itself: trusted folders), session-state/<uuid>/.
package copilot

import (
	"path/filepath"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/copilot/copilothook"
)

// ID is Copilot CLI's agent id in events.
const ID = copilothook.ID

// Provider is the GitHub Copilot CLI.
type Provider struct{}

// New returns the Copilot provider.
func New() *Provider { return &Provider{} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Copilot CLI" }

// OneSessionPerProcess: a Copilot process runs one session at a time
// (/resume and /new move it to another).
func (*Provider) OneSessionPerProcess() bool { return true }

// Home is $COPILOT_HOME, else ~/.copilot (verified on 1.0.102: both
// settings.json and session-state follow it).
func Home(env paths.Env) string {
	if d := env("COPILOT_HOME"); d != "" {
		return d
	}
	return filepath.Join(paths.Home(env), ".copilot")
}

// SettingsFile is the user settings file whose "hooks" Copilot runs.
func SettingsFile(env paths.Env) string { return filepath.Join(Home(env), "settings.json") }

// SessionsDir holds one folder per session, named by its id.
func SessionsDir(env paths.Env) string { return filepath.Join(Home(env), "session-state") }
