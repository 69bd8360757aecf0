package copilot

import (
	"strings"

	"github.com/agwatch/ag/providers/provider"
)

var _ provider.ProcDetector = (*Provider)(nil)

// ProcRules: how Copilot runs. The npm package's bin is a node loader
// (`node …/node_modules/.bin/copilot`, comm "node") that starts the native
// single executable as its child on the same tty
// (…/@github/copilot-linux-x64/copilot, with the same arguments), whose
// comm is "MainThread": matched by argv[0] and executable, never by comm.
// The loader is a launcher, so the pane reports one agent, the child. A
// standalone install runs the executable itself. `gh copilot` (argv[0] gh)
// and the gh-copilot extension match nothing.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:                []string{"copilot"},
		Session:              SessionFromArgv,
		LauncherInterpreters: []string{"node", "nodejs", "bun"},
	}
}

// SessionFromArgv is the session a Copilot command line resumes by id:
// `copilot --resume=<id>`, `--resume <id>`, `-r <id>`, `--session-id <id>`
// (a name or prefix is no id, and names nothing here).
func SessionFromArgv(argv []string) string {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		v := ""
		switch {
		case strings.HasPrefix(a, "--resume="), strings.HasPrefix(a, "--session-id="):
			_, v, _ = strings.Cut(a, "=")
		case (a == "--resume" || a == "-r" || a == "--session-id") && i+1 < len(argv):
			v = argv[i+1]
		}
		if provider.IsUUID(v) {
			return strings.ToLower(v)
		}
	}
	return ""
}
