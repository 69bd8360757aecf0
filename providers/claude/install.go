package claude

import (
	"path/filepath"

	"github.com/agwatch/ag/providers/claude/claudehook"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// HookTimeout is the timeout (seconds) install gives each handler. ag-hook
// takes milliseconds; the timeout only bounds a wedged disk.
const HookTimeout = 10

// hookEntries are the hooks install writes. A matcher only where it saves
// work: Notification runs ag-hook only for the types that mean a wait.
// Tool events carry "*" (every tool), the form Claude's docs show.
func hookEntries() []hookjson.Entry {
	return []hookjson.Entry{
		{Event: claudehook.HookSessionStart},
		{Event: claudehook.HookUserPromptSubmit},
		{Event: claudehook.HookPreToolUse, Matcher: "*"},
		{Event: claudehook.HookPermissionRequest, Matcher: "*"},
		{Event: claudehook.HookPostToolUse, Matcher: "*"},
		{Event: claudehook.HookPostToolUseFailure, Matcher: "*"},
		{Event: claudehook.HookNotification, Matcher: "permission_prompt|elicitation_dialog|agent_needs_input"},
		{Event: claudehook.HookSubagentStart},
		{Event: claudehook.HookSubagentStop},
		{Event: claudehook.HookPreCompact},
		{Event: claudehook.HookPostCompact},
		{Event: claudehook.HookStop},
		{Event: claudehook.HookStopFailure},
		{Event: claudehook.HookSessionEnd},
	}
}

var (
	_ provider.Hooked    = (*Provider)(nil)
	_ provider.Installer = (*Provider)(nil)
)

// ConfigPath is settings.json in $CLAUDE_CONFIG_DIR, else ~/.claude.
func (*Provider) ConfigPath(env provider.Env) string {
	dir := env("CLAUDE_CONFIG_DIR")
	if dir == "" {
		dir = filepath.Join(env("HOME"), ".claude")
	}
	return filepath.Join(dir, "settings.json")
}

// spec is the install for the ag-hook at hook. Claude runs a command
// string through bash, so the path is single-quoted: spaces survive.
func (p *Provider) spec(hook string) *hookjson.Spec {
	return &hookjson.Spec{
		Entries: hookEntries(),
		Command: hookjson.Quote(hook) + " " + ID,
		Timeout: HookTimeout,
		Owns:    hookjson.OwnedBy("ag-hook", ID),
	}
}

// Install adds ag's hooks to settings.json.
func (p *Provider) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	return hookjson.Install(ie, p.ConfigPath(ie.Env), p.spec(ie.Hook))
}

// Uninstall removes ag's hooks (and nothing else) from settings.json.
func (p *Provider) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return hookjson.Uninstall(ie, p.ConfigPath(ie.Env), p.spec(ie.Hook))
}

// Status reads settings.json.
func (p *Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	return hookjson.Status(p.ConfigPath(ie.Env), p.spec(ie.Hook))
}
