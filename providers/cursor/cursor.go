// Package cursor is the Cursor agent (cursor-agent) provider: hook install
// (~/.cursor/hooks.json, a flat schema with its top-level "version"), the
// version gate (hooks need cursor-agent 2026.1.16 or newer), detection
// data, key maps, resume/spawn templates and the approval estimate: Cursor
// has no hook for its approval prompt, so a call its preToolUse started
// that has no postToolUse after 10 s is a probable approval wait. The hook
// payload mapping is in cursorhook, which ag-hook links alone.
//
// cursor-agent is not on npm: what this package knows of its screens and
// keys comes from the seeds (verified there on 2026.07.01 and 2026.07.16),
// of its payloads from a capture's keys (../shared/corpus/cursor).
package cursor

import (
	"path/filepath"
	"time"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/cursor/cursorhook"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Cursor agent's id in events.
const ID = cursorhook.ID

// Provider is the Cursor agent CLI.
type Provider struct{}

// New returns the Cursor provider.
func New() *Provider { return &Provider{} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Cursor agent" }

var (
	_ provider.OneSession        = (*Provider)(nil)
	_ provider.ApprovalEstimator = (*Provider)(nil)
)

// OneSessionPerProcess: a cursor-agent process runs one chat at a time.
func (*Provider) OneSessionPerProcess() bool { return true }

// ApprovalEstimate: no hook reports Cursor's "Run this command?" prompt; a
// call still open after this long is probably waiting on it.
func (*Provider) ApprovalEstimate() time.Duration { return cursorhook.Estimate }

// HooksFile is the user-level hooks.json, ~/.cursor/hooks.json (the IDE's
// too). CURSOR_CONFIG_DIR moves the CLI's cli-config.json; no override of
// hooks.json is documented.
func HooksFile(env paths.Env) string {
	return filepath.Join(paths.Home(env), ".cursor", "hooks.json")
}
