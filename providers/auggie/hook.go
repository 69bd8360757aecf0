package auggie

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/auggie/auggiehook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Hooked = (*Provider)(nil)

// MapHook maps one hook payload (see auggiehook).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return auggiehook.Mapper{}.MapHook(raw, hc)
}

// ProcessNames are Auggie's comm names (see auggiehook).
func (*Provider) ProcessNames() []string { return auggiehook.Mapper{}.ProcessNames() }
