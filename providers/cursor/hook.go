package cursor

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/cursor/cursorhook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Hooked = (*Provider)(nil)

// MapHook maps one hook payload (see cursorhook).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return cursorhook.Mapper{}.MapHook(raw, hc)
}

// ProcessNames are Cursor's comm names (see cursorhook).
func (*Provider) ProcessNames() []string { return cursorhook.Mapper{}.ProcessNames() }
