package main

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

// userClient is the tmux client a person uses most recently, "" when none
// is attached. tmux's own choice for a command run outside tmux is the
// client with the latest activity, and a control-mode client (ag-detect
// --watch attaches one to every session) counts: just after it attached,
// switch-client without -c would switch it, not the person's.
func (c *cmd) userClient(ctx context.Context) string {
	out, err := c.tmux.Run(ctx, "list-clients", "-F", "#{?client_control_mode,,#{client_activity} #{client_name}}")
	if err != nil {
		return ""
	}
	best, name := int64(-1), ""
	for _, l := range strings.Split(string(out), "\n") {
		act, n, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		if a, err := strconv.ParseInt(act, 10, 64); err == nil && a > best {
			best, name = a, n
		}
	}
	return name
}

// runsUnder reports whether agent is a script that program runs (its
// definition's runtimes): then that program in the foreground is the
// agent, not a shell at its prompt (a user's agent written in sh).
func runsUnder(agent, program string) bool {
	d, ok := providers.ByID(agent).(provider.ProcDetector)
	return ok && slices.Contains(d.ProcRules().Runtimes, program)
}
