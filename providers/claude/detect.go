package claude

import "github.com/agwatch/ag/providers/provider"

// ProcRules: how Claude Code runs. The npm package's bin is a native
// (Bun-built) binary: argv[0] is whatever was run (…/node_modules/.bin/claude,
// a symlink), /proc/PID/exe is …/@anthropic-ai/claude-code/bin/claude.exe and
// comm is "claude". Older releases ran under node as `node …/claude-code/cli.js`,
// which is the agent itself, not a launcher. The native binary starts a
// short-lived `claude.exe` helper child, which must not be reported instead.
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names: []string{"claude", "claude-code"},
		Paths: []string{"/claude-code/", "/@anthropic-ai/claude-code"}, // also the native -linux-x64 packages
	}
}
