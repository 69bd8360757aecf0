package providers

import (
	"sync"

	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/agentdef"
	"github.com/agwatch/ag/providers/provider"
)

// All returns every agent in detection order (first match wins): those
// written in Go, then those the definition files define (built in first,
// then the user's own). The files are read once per process, at the first
// call: a program sees the definitions it started with.
func All() []provider.Provider {
	s := loaded()
	all := Go()
	for _, a := range s.Agents {
		all = append(all, a.Provider())
	}
	return all
}

// loaded is the definitions as this process read them: read once, then
// never changed (ag-fold asks for providers at every event).
var loaded = sync.OnceValue(func() *agentdef.Set { return agentdef.Load(paths.OS(), Go()) })

// DefinitionErrors are the definition files this process refused, each
// "FILE:LINE: why": a program that runs definitions says them once.
func DefinitionErrors() []error { return loaded().Errors }

// PaneRules are the screen rules of p: a user's file's for an agent
// written in Go when one replaces them, else its own; false when it has
// none.
func PaneRules(p provider.Provider) (panes.Rules, bool) {
	if p == nil {
		return panes.Rules{}, false
	}
	if g, ok := loaded().Screens[p.ID()]; ok {
		return g.Rules, true
	}
	if d, ok := p.(provider.PaneDetector); ok {
		return d.PaneRules(), true
	}
	return panes.Rules{}, false
}

// Source says where p's rules come from, for people (ag-detect
// --explain): a definition file, or ag's Go package (and the user's file
// that replaces its screen rules).
func Source(p provider.Provider) string {
	if s, ok := p.(agentdef.Sourced); ok {
		return s.Source()
	}
	src := "ag's own package providers/" + p.ID()
	if g, ok := loaded().Screens[p.ID()]; ok {
		src += "; screen rules from " + g.Source
	}
	return src
}
