package antigravity

import "github.com/agwatch/ag/providers/provider"

var _ provider.ProcDetector = (*Provider)(nil)

// ProcRules: agy by its exact name (argv[0] or the executable). The name
// can also be a symlink to the Antigravity desktop app's launcher, whose
// resolved executable is named antigravity (…/Antigravity.app/…/bin/
// antigravity): that process is the editor, never a CLI session.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:    []string{"agy"},
		NotNames: []string{"antigravity"},
		Not:      []string{"/antigravity.app/"},
	}
}
