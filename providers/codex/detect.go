package codex

import (
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.ProcDetector = (*Provider)(nil)

// ProcRules: how Codex runs. The npm package's bin is a node script
// (`node …/node_modules/.bin/codex`, comm "node") that starts the native
// binary as its child on the same tty
// (…/@openai/codex-linux-x64/vendor/<triple>/bin/codex, comm "codex"): the
// wrapper is a launcher and the native child is the agent. Two internal
// processes also look like Codex and are never sessions: the code-mode
// host (codex-code-mode-host, a same-tty child in the project directory)
// and the bundled computer-use MCP server, which runs from
// $CODEX_HOME/plugins/ (argv[0] "Codex"; see IsPluginHost for a
// CODEX_HOME elsewhere). Since 0.17x the TUI also starts a shared
// background server, $CODEX_HOME/packages/app-server-daemon/releases/<v>/
// bin/codex app-server (comm "codex", no tty), which outlives the TUI and
// serves every session of that CODEX_HOME: never a session's process.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:                []string{"codex"},
		Paths:                []string{"/@openai/codex/", "/@openai/codex-"},
		Not:                  []string{"codex-code-mode-host", "/.codex/plugins/", "/app-server-daemon/"},
		Session:              SessionFromArgv,
		LauncherInterpreters: []string{"node", "nodejs", "bun"},
	}
}

// IsPluginHost reports a process running from Codex's plugins folder (cwd
// or executable under $CODEX_HOME/plugins/): the computer-use MCP host,
// never a session. Without this filter it would group panes by its version
// folder.
func IsPluginHost(env paths.Env, cwd, exe string) bool {
	dir := filepath.Join(Home(env), "plugins") + string(filepath.Separator)
	return strings.HasPrefix(cwd+string(filepath.Separator), dir) || strings.HasPrefix(exe, dir)
}

// SessionFromArgv is the thread id a Codex command line names: `codex
// resume <id>` (flags may sit between, e.g. `codex resume -m o3 <id>`).
// "" for a new session or `codex resume --last`. With the shared background
// server (0.17x) hooks cannot say which pane a session is in, so a resumed
// process's own argv is the one direct link.
func SessionFromArgv(argv []string) string {
	for i := 1; i < len(argv); i++ {
		if argv[i] != "resume" {
			continue
		}
		for _, a := range argv[i+1:] {
			if provider.IsUUID(a) {
				return strings.ToLower(a)
			}
		}
		return ""
	}
	return ""
}
