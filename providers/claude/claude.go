// Package claude is the Claude Code provider: hook mapping and install,
// transcript parsing, context sizes, detection and key maps.
package claude

// ID is Claude Code's agent id in events.
const ID = "claude"

// Provider is Claude Code.
type Provider struct{}

// New returns the Claude Code provider.
func New() *Provider { return &Provider{} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Claude Code" }
