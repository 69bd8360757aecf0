// Package antigravity is the Antigravity CLI (agy) provider: its named
// entry in the global hooks file, the conversation transcripts agy writes
// under its brain folder, detection data (never the Antigravity desktop
// app's launcher), key maps, pane rules for the permission prompt no hook
// reports, and resume/spawn templates. agy is not on npm: what is here
// comes from ccmux's and mytty's notes (the seeds) and a transcript from
// the corpus. The hook payload mapping is in agyhook.
package antigravity

import (
	"path/filepath"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/antigravity/agyhook"
)

// ID is Antigravity's agent id in events.
const ID = agyhook.ID

// Provider is the Antigravity CLI.
type Provider struct{}

// New returns the Antigravity provider.
func New() *Provider { return &Provider{} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Antigravity" }

// OneSessionPerProcess: an agy process runs one conversation.
func (*Provider) OneSessionPerProcess() bool { return true }

// Dir is ~/.gemini, which agy shares with Gemini CLI.
func Dir(env paths.Env) string {
	return filepath.Join(paths.Home(env), ".gemini")
}

// HooksFile is agy's global hooks file, ~/.gemini/config/hooks.json: the
// one it reliably reads (a workspace's .agents/hooks.json loads only with
// --new-project).
func HooksFile(env paths.Env) string { return filepath.Join(Dir(env), "config", "hooks.json") }

// BrainDir holds one folder per conversation.
func BrainDir(env paths.Env) string { return filepath.Join(Dir(env), "antigravity-cli", "brain") }
