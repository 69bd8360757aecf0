package crush

import (
	"path/filepath"
	"strconv"

	"github.com/agwatch/ag/providers/crush/crushhook"
	"github.com/agwatch/ag/providers/internal/flathooks"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Installer = (*Provider)(nil)

// ConfigPath is the global crush.json. (A project's crush.json or
// .crush.json adds hooks of its own; ag writes only the global one.)
func (*Provider) ConfigPath(env provider.Env) string {
	return filepath.Join(ConfigDir(env), "crush.json")
}

// spec is the install for the ag-hook at hook: one PreToolUse handler
// `{"command": "'<ag-hook>' crush", "timeout": 10}` in Crush's flat list,
// no matcher (every tool). Crush runs the command in its embedded POSIX
// shell, so the quoted path is one word.
func (*Provider) spec(hook string) *flathooks.Spec {
	cmd := hookjson.Quote(hook) + " " + ID
	return &flathooks.Spec{
		Events:  []string{crushhook.HookPreToolUse},
		Command: "command",
		Want: func(string) []hookjson.Member {
			return []hookjson.Member{{Key: "command", Raw: hookjson.String(cmd)},
				{Key: "timeout", Raw: []byte(strconv.Itoa(crushhook.HookTimeout))}}
		},
		Owns: func(command, _ string) bool {
			w := hookjson.Words(command)
			return len(w) == 2 && filepath.Base(w[0]) == "ag-hook" && w[1] == ID
		},
		Comments: true,
	}
}

// Install adds ag's PreToolUse handler to crush.json.
func (p *Provider) Install(ie provider.InstallEnv) (provider.InstallResult, error) {
	res, err := flathooks.Install(ie, p.ConfigPath(ie.Env), p.spec(ie.Hook))
	if err == nil && res.Changed {
		res.Actions = append(res.Actions, "! Crush reads crush.json when it starts: restart a running crush")
	}
	return res, err
}

// Uninstall removes ag's handler (and nothing else) from crush.json.
func (p *Provider) Uninstall(ie provider.InstallEnv) (provider.InstallResult, error) {
	return flathooks.Uninstall(ie, p.ConfigPath(ie.Env), p.spec(ie.Hook))
}

// Status reads crush.json.
func (p *Provider) Status(ie provider.InstallEnv) (provider.InstallStatus, error) {
	return flathooks.Status(p.ConfigPath(ie.Env), p.spec(ie.Hook))
}
