package antigravity

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/antigravity/agyhook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Hooked = (*Provider)(nil)

// MapHook maps one hook payload (see agyhook).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return agyhook.Mapper{}.MapHook(raw, hc)
}

// ProcessNames are agy's comm names (see agyhook).
func (*Provider) ProcessNames() []string { return agyhook.Mapper{}.ProcessNames() }
