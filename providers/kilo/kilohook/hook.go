// Package kilohook maps what ag's plugin hands to `ag-hook kilo`: Kilo CLI
// is a fork of OpenCode that kept its plugin bus, so the plugin is
// OpenCode's (contrib/opencode) and its lines are OpenCode's
// (opencodehook), under Kilo's id.
package kilohook

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/opencode/opencodehook"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Kilo CLI's agent id in events.
const ID = "kilo"

// Mapper maps Kilo's plugin lines (providers/hooks lists it).
type Mapper struct{}

func (Mapper) ID() string { return ID }

// ProcessNames: npm's `kilo` is a node launcher whose child, the native
// binary the plugin runs in (a worker of it), is `…/@kilocode/cli/bin/.kilo`.
func (Mapper) ProcessNames() []string { return []string{".kilo", "kilo"} }

// Batches: the plugin hands ag-hook the lines that came while an earlier
// one ran, several at once (hooks.Batcher).
func (Mapper) Batches() bool { return true }

func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return opencodehook.Map(ID, raw, hc)
}
