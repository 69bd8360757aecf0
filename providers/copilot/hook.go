package copilot

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/copilot/copilothook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Hooked = (*Provider)(nil)

// MapHook maps one hook payload (see copilothook).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return copilothook.Mapper{}.MapHook(raw, hc)
}

// ProcessNames are Copilot's comm names (see copilothook).
func (*Provider) ProcessNames() []string { return copilothook.Mapper{}.ProcessNames() }
