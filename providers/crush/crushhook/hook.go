// Package crushhook maps Crush's hook payloads to events: what ag-hook
// runs, apart from the rest of the Crush provider (the crush.json editor,
// the store reader, pane rules), so the hook binary links none of that.
// providers/crush delegates here.
//
// Crush (charmbracelet/crush; read from its source and docs/hooks: Crush
// cannot be installed here, see doc/agents/crush.md) fires one hook,
// PreToolUse, before the permission check of every tool call of the
// top-level agent. Its stdin is Claude's shape with "event" for
// hook_event_name: {"event","session_id","cwd","tool_name","tool_input"}.
// Exit 2 denies the call, 49 halts the turn, and exit 0 with JSON on
// stdout may allow (skipping the permission prompt), deny or rewrite it;
// exit 0 with nothing on stdout is no opinion, and the call goes on to
// the usual permission flow. ag-hook prints nothing and exits 0.
package crushhook

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/hookdialect"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Crush's agent id in events.
const ID = "crush"

// HookPreToolUse is the one event Crush fires.
const HookPreToolUse = "PreToolUse"

// HookTimeout is each handler's timeout in seconds (Crush's unit; its
// default is 30).
const HookTimeout = 10

var dialect = hookdialect.Dialect{
	Agent: ID,
	// The native Go binary: comm "crush". Its hooks run from its embedded
	// shell, so the hook's parent is Crush itself.
	Processes:           []string{"crush"},
	Fields:              map[string]string{"event": "hook_event_name"},
	Notifications:       map[string]string{},
	ShellTools:          []string{"bash"},
	PreToolBeforeDialog: true,
}

// Dialect is Crush's hook dialect.
func Dialect() *hookdialect.Dialect { return &dialect }

// Mapper maps Crush's hook payloads (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// ProcessNames are Crush's comm names.
func (Mapper) ProcessNames() []string { return dialect.Processes }

// MapHook maps one Crush hook payload to events (see hookdialect).
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return dialect.MapHook(raw, hc)
}
