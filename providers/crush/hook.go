package crush

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/crush/crushhook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Hooked = (*Provider)(nil)

// MapHook maps one hook payload (see crushhook).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return crushhook.Mapper{}.MapHook(raw, hc)
}

// ProcessNames are Crush's comm names (see crushhook).
func (*Provider) ProcessNames() []string { return crushhook.Mapper{}.ProcessNames() }
