// Package droid is the Factory Droid provider (npm @factory/cli, and the
// older droid package): hook install into ~/.factory/settings.json through
// Claude's hook dialect, the session transcripts and their token totals,
// detection data, pane rules, key maps and command lines. The hook mapping
// is droidhook's, which ag-hook links alone. Verified on 0.225.2
// (doc/agents/droid.md).
package droid

import (
	"path/filepath"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/droid/droidhook"
	"github.com/agwatch/ag/providers/hookdialect/hooksettings"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Factory Droid's agent id in events.
const ID = droidhook.ID

// Provider is Factory Droid. Its install is the dialect's settings.json edit.
type Provider struct{ hooksettings.Installer }

// New returns the Factory Droid provider.
func New() *Provider { return &Provider{hooksettings.Installer{D: droidhook.Dialect()}} }

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Factory Droid" }

var (
	_ provider.Hooked       = (*Provider)(nil)
	_ provider.Installer    = (*Provider)(nil)
	_ provider.ProcDetector = (*Provider)(nil)
	_ provider.Commanded    = (*Provider)(nil)
)

// MapHook maps one hook payload (droidhook's dialect).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return droidhook.Dialect().MapHook(raw, hc)
}

// ProcessNames are Factory Droid's comm names (see droidhook).
func (*Provider) ProcessNames() []string { return droidhook.Dialect().Processes }

// Dir is Droid's folder, ~/.factory.
func Dir(env paths.Env) string { return filepath.Join(paths.Home(env), ".factory") }

// ProcRules: droid 0.225.2 from npm is a native binary (…/@factory/cli/bin/
// droid, comm "droid", hard-linked over the package's JS shim by its
// postinstall or its first run); it starts a child `droid exec
// --input-format stream-jsonrpc --output-format stream-jsonrpc`, which runs
// the agent and the hooks. Detection reports the pane's foreground process,
// the TUI: the child shares its pane and is never a second agent.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names: []string{"droid"},
		Paths: []string{"/@factory/cli/", "/@factory/cli-"},
		// The JS shim, when npm ran no install script: node …/bin/droid
		// starts the binary as its child.
		LauncherInterpreters: []string{"node", "nodejs"},
	}
}

// Commands are droid's command lines (0.225.2 `droid --help`): a
// positional prompt starts the TUI with it; -r/--resume takes the session
// id /quit prints ("droid --resume <uuid>"); --fork <id> resumes a copy.
// The TUI has no model flag (droid exec has -m): models are chosen in it.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:    "droid",
		Resume: "{bin} --resume '{id}'",
		Spawn:  "{bin} '{prompt}'",
		Fork:   "{bin} --fork '{id}'",
	}
}
