package hooks_test

import (
	"slices"
	"testing"

	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/agentdef"
	"github.com/agwatch/ag/providers/hooks"
	"github.com/agwatch/ag/providers/provider"
)

// TestSameAgents: every provider with hooks has its mapper here (the
// provider's MapHook calls it), with the same process names, in the same
// order, and nothing else is here.
func TestSameAgents(t *testing.T) {
	var ids []string
	for _, p := range providers.All() {
		h, ok := p.(provider.Hooked)
		if _, defined := p.(agentdef.Sourced); !ok || defined {
			continue // a definition's hooks are found by ag-hook through defhooks
		}
		ids = append(ids, h.ID())
		m := hooks.ByID(h.ID())
		if m == nil {
			t.Errorf("%s: provider has hooks, hooks.All has no mapper", h.ID())
			continue
		}
		if !slices.Equal(m.ProcessNames(), h.ProcessNames()) {
			t.Errorf("%s: process names %q here, %q in the provider", h.ID(), m.ProcessNames(), h.ProcessNames())
		}
	}
	var got []string
	for _, m := range hooks.All() {
		got = append(got, m.ID())
	}
	if !slices.Equal(got, ids) {
		t.Errorf("hooks.All: %q; providers with hooks, in order: %q", got, ids)
	}
	if hooks.ByID("nope") != nil {
		t.Error("ByID of an unknown agent is not nil")
	}
}
