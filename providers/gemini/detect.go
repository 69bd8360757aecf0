package gemini

import (
	"strings"

	"github.com/agwatch/ag/providers/provider"
)

var _ provider.ProcDetector = (*Provider)(nil)

// ProcRules: how Gemini CLI runs (0.61.0 from npm, seen in tmux). The
// pane runs `node …/node_modules/.bin/gemini` (a symlink to
// …/@google/gemini-cli/bundle/gemini.js), which re-executes itself with a
// larger heap as its child, `node --max-old-space-size=… …/.bin/gemini`,
// and waits: the child runs the session and its hooks. Both look alike, so
// each is a launcher and detection follows the parent to its child — one
// agent, the process that runs the session (the parent alone when Gemini
// does not relaunch: GEMINI_CLI_NO_RELAUNCH, advanced.autoConfigureMemory
// false). A checkout runs `node …/gemini-cli/bundle/gemini.js`.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:                []string{"gemini", "gemini-cli"},
		Paths:                []string{"/@google/gemini-cli/", "/gemini-cli/bundle/"},
		LauncherInterpreters: []string{"node", "nodejs", "bun"},
		Session:              SessionFromArgv,
	}
}

// SessionFromArgv is the session a Gemini command line names: `--resume
// <uuid>` (-r, --resume=<uuid>) or `--session-id <uuid>`; "" for a new
// session or `--resume latest` / an index.
func SessionFromArgv(argv []string) string {
	for i := 1; i < len(argv); i++ {
		a, val := argv[i], ""
		if k, v, ok := strings.Cut(a, "="); ok {
			a, val = k, v
		} else if i+1 < len(argv) {
			val = argv[i+1]
		}
		switch a {
		case "-r", "--resume", "--session-id":
			if provider.IsUUID(val) {
				return strings.ToLower(val)
			}
			return ""
		}
	}
	return ""
}
