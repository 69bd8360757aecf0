// Package claude is the Claude Code provider: hook install, transcript
// parsing, detection and key maps; the hook and statusLine mapping and the
// context sizes are in claudehook, which ag-hook links alone.
package claude

import (
	"github.com/agwatch/ag/providers/claude/claudehook"
	"github.com/agwatch/ag/providers/hookdialect/hooksettings"
)

// ID is Claude Code's agent id in events.
const ID = claudehook.ID

// Provider is Claude Code. Its statusLine install (settings.json's
// statusLine wrapped) is hooksettings'.
type Provider struct{ hooksettings.StatusLine }

// New returns the Claude Code provider.
func New() *Provider { return &Provider{hooksettings.StatusLine{D: claudehook.Dialect()}} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Claude Code" }

// OneSessionPerProcess: /clear, /resume and --fork-session move a claude
// process from one session to another.
func (*Provider) OneSessionPerProcess() bool { return true }
