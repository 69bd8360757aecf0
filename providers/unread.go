package providers

import (
	"github.com/agwatch/ag/providers/agentdef"
	"github.com/agwatch/ag/providers/provider"
)

// Unread reports whether ag can name p's process but reads nothing of what
// it does: a definition with no screen rules and no hooks (the long tail's
// process-only built-ins). ag-detect's proc.up for it carries
// event.ReasonUnread, and the views show "?" rather than a status no
// source gave. Every agent written in Go has hooks or files to read.
func Unread(p provider.Provider) bool {
	if _, ok := p.(agentdef.Sourced); !ok {
		return false
	}
	if _, ok := p.(provider.Hooked); ok {
		return false
	}
	r, _ := PaneRules(p)
	return len(r.States)+len(r.Titles) == 0
}
