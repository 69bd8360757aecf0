package qwen

import (
	"github.com/agwatch/ag/providers/gemini"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.ProcDetector = (*Provider)(nil)

// ProcRules: how Qwen Code 0.24.4 runs from npm (seen in tmux). The pane
// runs `node …/node_modules/.bin/qwen` (a symlink to
// …/@qwen-code/qwen-code/cli.js), which starts `node --expose-gc
// …/cli.js`, which starts another `node --expose-gc …/cli.js` that runs
// the session and its hooks. All three look alike, so each is a launcher
// and detection follows them down to the last: one agent.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:                []string{"qwen"},
		Paths:                []string{"/@qwen-code/qwen-code/"},
		LauncherInterpreters: []string{"node", "nodejs", "bun"},
		// Gemini CLI's flags, kept by the fork: --resume, -r, --session-id.
		Session: gemini.SessionFromArgv,
	}
}
