package gemini

import (
	"encoding/json"
	"slices"

	"github.com/agwatch/ag/providers/gemini/geminihook"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// HookTimeout is the timeout install gives each handler, in milliseconds
// (Gemini's unit; its default is a minute). ag-hook takes milliseconds;
// the timeout only bounds a wedged disk.
const HookTimeout = 10000

var _ provider.Installer = (*Provider)(nil)

// ConfigPath is settings.json in Gemini's folder.
func (*Provider) ConfigPath(env provider.Env) string { return SettingsFile(env) }

// format: Gemini reads settings.json through strip-json-comments, and
// older versions kept hook settings under "hooks" (HOOKS_CONFIG_FIELDS).
var format = hookjson.Format{Comments: true, Settings: []string{"enabled", "disabled", "notifications"}}

// spec is the install for the ag-hook at hook. No matchers: Gemini's tool
// matchers are regular expressions over the tool name, and an absent one
// matches every tool and event.
//
// A handler that runs `ag-hook claude` is ours too, the wrong one: `gemini
// hooks migrate` copies Claude's hooks into Gemini's settings as they are
// (Claude's 10 s timeout read as 10 ms, Claude payload mapping for Gemini's
// events). Status reports it, install replaces it, uninstall removes it.
func (p *Provider) spec(hook string) *hookjson.Spec {
	var entries []hookjson.Entry
	for _, h := range geminihook.Hooks {
		entries = append(entries, hookjson.Entry{Event: h})
	}
	gemini, claude := hookjson.OwnedBy("ag-hook", ID), hookjson.OwnedBy("ag-hook", "claude")
	return &hookjson.Spec{
		Entries: entries,
		Command: hookjson.Quote(hook) + " " + ID,
		Timeout: HookTimeout,
		Owns: func(command string, args []string) bool {
			return gemini(command, args) || claude(command, args)
		},
		Format: format,
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

// Status reads settings.json. Hooks installed but switched off
// (hooksConfig.enabled false, or ag's command in hooksConfig.disabled)
// need repair: Gemini runs none of them. Install leaves those settings
// alone: they are the user's choice, and status says where they are.
func (p *Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	path := p.ConfigPath(ie.Env)
	s := p.spec(ie.Hook)
	st, err := hookjson.Status(path, s)
	if err != nil || st.State == provider.NotInstalled {
		return st, err
	}
	raw, err := format.ReadMember(path, "hooksConfig")
	if err != nil || raw == nil {
		return st, err
	}
	var hc struct {
		Enabled  *bool    `json:"enabled"`
		Disabled []string `json:"disabled"`
	}
	if json.Unmarshal(raw, &hc) != nil {
		return st, nil // Gemini warns about a malformed hooksConfig itself
	}
	if hc.Enabled != nil && !*hc.Enabled {
		st.State = provider.NeedsRepair
		st.Reasons = append(st.Reasons, "hooksConfig.enabled is false: Gemini runs no hooks")
	}
	if slices.Contains(hc.Disabled, s.Command) {
		st.State = provider.NeedsRepair
		st.Reasons = append(st.Reasons, "hooksConfig.disabled lists ag-hook: Gemini skips it")
	}
	return st, nil
}
