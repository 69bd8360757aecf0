// Package omphook maps what ag's extension hands to `ag-hook omp`: Pi's
// lines (pihook) plus omp's tool approvals and in-place session changes.
package omphook

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/pi/pihook"
	"github.com/agwatch/ag/providers/provider"
)

// ID is omp's agent id in events.
const ID = "omp"

// Mapper maps omp's lines (providers/hooks lists it).
type Mapper struct{}

func (Mapper) ID() string { return ID }

// Batches: ag's own plugin hands several lines at once (hooks.Batcher).
func (Mapper) Batches() bool { return true }

// ProcessNames: omp runs under Bun, whose process.title never reaches the
// kernel: its comm is "bun" (a standalone build's is "omp").
func (Mapper) ProcessNames() []string { return []string{"omp", "bun"} }

func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return pihook.Map(ID, raw, hc)
}
