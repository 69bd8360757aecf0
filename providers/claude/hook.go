package claude

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude/claudehook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Hooked = (*Provider)(nil)

// MapHook maps one hook payload (see claudehook).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return claudehook.Mapper{}.MapHook(raw, hc)
}

// ProcessNames are Claude Code's comm names (see claudehook).
func (*Provider) ProcessNames() []string { return claudehook.Mapper{}.ProcessNames() }
