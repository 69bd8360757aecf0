package copilot

import (
	"encoding/json"
	"path/filepath"
	"strconv"

	"github.com/agwatch/ag/providers/copilot/copilothook"
	"github.com/agwatch/ag/providers/internal/flathooks"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// HookTimeout is the timeoutSec install gives each handler; ag-hook takes
// milliseconds, the timeout only bounds a wedged disk.
const HookTimeout = 10

// RestartHint is what install says: Copilot reads its hooks when it starts.
const RestartHint = "Copilot reads hooks when it starts: sessions already running go on without them until restarted (copilot --resume=<id>)"

var _ provider.Installer = (*Provider)(nil)

// ConfigPath is settings.json in $COPILOT_HOME, else ~/.copilot.
func (*Provider) ConfigPath(env provider.Env) string { return SettingsFile(env) }

// spec is the install for the ag-hook at hook: one handler per event,
// `'<ag-hook>' copilot <event>` (the payloads do not name their event),
// run by bash, so the path is single-quoted.
func (*Provider) spec(hook string) *flathooks.Spec {
	return &flathooks.Spec{
		Events:  copilothook.Hooks,
		Command: "bash",
		Want: func(ev string) []hookjson.Member {
			return []hookjson.Member{
				{Key: "type", Raw: hookjson.String("command")},
				{Key: "bash", Raw: hookjson.String(hookjson.Quote(hook) + " " + ID + " " + ev)},
				{Key: "timeoutSec", Raw: json.RawMessage(strconv.Itoa(HookTimeout))},
			}
		},
		Owns:     owns,
		Comments: true, // Copilot reads settings.json as JSON with comments
	}
}

// owns: `<any dir>/ag-hook copilot [event]`, however quoted, is ours.
func owns(command, _ string) bool {
	w := hookjson.Words(command)
	return (len(w) == 2 || len(w) == 3) && filepath.Base(w[0]) == "ag-hook" && w[1] == ID
}

// Install adds ag's hooks to settings.json.
func (p *Provider) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	res, err := flathooks.Install(ie, SettingsFile(ie.Env), p.spec(ie.Hook))
	if err == nil && res.Changed {
		res.Actions = append(res.Actions, "! "+RestartHint)
	}
	return res, err
}

// Uninstall removes ag's hooks (and nothing else) from settings.json.
func (p *Provider) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return flathooks.Uninstall(ie, SettingsFile(ie.Env), p.spec(ie.Hook))
}

// Status reads settings.json.
func (p *Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	return flathooks.Status(SettingsFile(ie.Env), p.spec(ie.Hook))
}
