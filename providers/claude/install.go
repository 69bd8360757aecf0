package claude

import (
	"github.com/agwatch/ag/providers/claude/claudehook"
	"github.com/agwatch/ag/providers/hookdialect/hooksettings"
	"github.com/agwatch/ag/providers/provider"
)

// HookTimeout is the timeout (seconds) install gives each handler. ag-hook
// takes milliseconds; the timeout only bounds a wedged disk.
const HookTimeout = claudehook.HookTimeout

var (
	_ provider.Hooked      = (*Provider)(nil)
	_ provider.Installer   = (*Provider)(nil)
	_ provider.StatusLiner = (*Provider)(nil)
)

// settings installs Claude's dialect (claudehook) into settings.json.
func settings() hooksettings.Installer { return hooksettings.Installer{D: claudehook.Dialect()} }

// ConfigPath is settings.json in $CLAUDE_CONFIG_DIR, else ~/.claude.
func (*Provider) ConfigPath(env provider.Env) string { return settings().ConfigPath(env) }

// Install adds ag's hooks to settings.json.
func (p *Provider) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	return settings().Install(ie)
}

// Uninstall removes ag's hooks (and nothing else) from settings.json.
func (p *Provider) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return settings().Uninstall(ie)
}

// Status reads settings.json.
func (p *Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	return settings().Status(ie)
}
