package agentdef

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/hookdialect"
	"github.com/agwatch/ag/providers/hookdialect/hooksettings"
	"github.com/agwatch/ag/providers/provider"
)

// Agent is an agent a definition file defines: a provider whose rules
// are the file's, compiled once when it was loaded.
type Agent struct {
	id, name string
	checked  string // what the rules were checked against
	source   string // where the definition came from, for people
	proc     provider.ProcRules
	screen   panes.Rules
	keys     provider.KeyMap
	cmds     provider.Commands
	hooks    *hookdialect.Dialect // nil: the agent has no hooks ag reads
}

var (
	_ provider.ProcDetector = (*Agent)(nil)
	_ provider.PaneDetector = (*Agent)(nil)
	_ provider.Keyed        = (*Agent)(nil)
	_ provider.Commanded    = (*Agent)(nil)
	_ Sourced               = (*Agent)(nil)
)

func (a *Agent) ID() string                    { return a.id }
func (a *Agent) Name() string                  { return a.name }
func (a *Agent) ProcRules() provider.ProcRules { return a.proc }
func (a *Agent) PaneRules() panes.Rules        { return a.screen }
func (a *Agent) Keys() provider.KeyMap         { return a.keys }
func (a *Agent) Commands() provider.Commands   { return a.cmds }
func (a *Agent) Source() string                { return a.source }
func (a *Agent) Checked() string               { return a.checked }

// Provider is the agent as the programs see it: with its hooks (ag-hook
// runs them; provider.Hooked) when the definition declares a dialect, and
// their installer (provider.Installer) when it says where they go.
func (a *Agent) Provider() provider.Provider {
	switch {
	case a.hooks == nil:
		return a
	case a.hooks.Install.File == "":
		return &hooked{a}
	case len(a.hooks.Install.StatusLine) > 0:
		return &withStatusLine{installed{hooked{a}, hooksettings.Installer{D: a.hooks}}, hooksettings.StatusLine{D: a.hooks}}
	}
	return &installed{hooked{a}, hooksettings.Installer{D: a.hooks}}
}

type hooked struct{ *Agent }

func (h *hooked) MapHook(payload []byte, hc provider.HookContext) ([]event.Event, error) {
	return h.hooks.MapHook(payload, hc)
}
func (h *hooked) ProcessNames() []string { return h.hooks.Processes }

type installed struct {
	hooked
	hooksettings.Installer
}

// withStatusLine is an installed agent whose status-line command (fed
// Claude's statusLine JSON) install wraps too.
type withStatusLine struct {
	installed
	hooksettings.StatusLine
}

var (
	_ provider.Hooked      = (*hooked)(nil)
	_ provider.Installer   = (*installed)(nil)
	_ provider.StatusLiner = (*withStatusLine)(nil)
)

// Sourced is a provider whose rules come from a definition file, which
// Source names for people (ag-detect --explain).
type Sourced interface {
	Source() string
}

// GoScreen is a user's replacement of the screen rules of an agent written
// in Go.
type GoScreen struct {
	Rules  panes.Rules
	Source string
}
