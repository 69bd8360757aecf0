package codex

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/codex/codexhook"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Hooked = (*Provider)(nil)

// MapHook maps one hook payload (see codexhook).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return codexhook.Mapper{}.MapHook(raw, hc)
}

// ProcessNames are Codex's comm names (see codexhook).
func (*Provider) ProcessNames() []string { return codexhook.Mapper{}.ProcessNames() }
