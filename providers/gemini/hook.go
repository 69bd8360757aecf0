package gemini

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/gemini/geminihook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Hooked = (*Provider)(nil)

// MapHook maps one hook payload (see geminihook).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return geminihook.Mapper{}.MapHook(raw, hc)
}

// ProcessNames are Gemini's comm names (see geminihook).
func (*Provider) ProcessNames() []string { return geminihook.Mapper{}.ProcessNames() }
