package crush

import (
	"strings"

	"github.com/agwatch/ag/providers/provider"
)

var _ provider.ProcDetector = (*Provider)(nil)

// ProcRules: Crush is one native Go binary, comm "crush" (a release, brew,
// go install). npm's @charmland/crush runs it from `node
// …/@charmland/crush/run-crush.js`, which waits on the binary it spawns
// (…/@charmland/crush/bin/crush): a launcher, and the agent is its child.
// `crush server`, the background server CRUSH_CLIENT_SERVER=1 starts, has
// no terminal: no pane shows it.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:                []string{"crush"},
		Paths:                []string{"/@charmland/crush/"},
		LauncherInterpreters: []string{"node", "nodejs"},
		Session:              SessionFromArgv,
	}
}

// SessionFromArgv is the session `crush --session <id>` (-s, --session=)
// continues; "" for a new one or --continue.
func SessionFromArgv(argv []string) string {
	for i := 1; i < len(argv); i++ {
		a, val := argv[i], ""
		if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a, val = k, v
		} else if i+1 < len(argv) {
			val = argv[i+1]
		}
		if a == "-s" || a == "--session" {
			if val != "" && val[0] != '-' && provider.CheckSessionID(val) == nil {
				return val
			}
			return ""
		}
	}
	return ""
}
