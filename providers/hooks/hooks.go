// Package hooks lists the agents whose hooks ag-hook runs, by the leaf
// packages that map their payloads. ag-hook imports this rather than the
// providers list: a hook is a process start, start-up time grows with the
// binary, and a provider brings its config editors, transcript parsers and
// pane rules along. Adding an agent with hooks is one line here beside its
// line in providers.All (TestSameAgents holds the two together).
package hooks

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude/claudehook"
	"github.com/agwatch/ag/providers/codex/codexhook"
	"github.com/agwatch/ag/providers/provider"
)

// Mapper is what ag-hook needs of an agent: provider.Hooked without the
// rest of a provider.
type Mapper interface {
	ID() string
	// ProcessNames are the comm names of the agent's own process.
	ProcessNames() []string
	// MapHook turns one hook payload into the events it means.
	MapHook(payload []byte, hc provider.HookContext) ([]event.Event, error)
}

// All returns every agent ag-hook runs hooks for, in providers.All's order.
func All() []Mapper {
	return []Mapper{
		claudehook.Mapper{},
		codexhook.Mapper{},
	}
}

// ByID returns the agent with that id, or nil.
func ByID(id string) Mapper {
	for _, m := range All() {
		if m.ID() == id {
			return m
		}
	}
	return nil
}
