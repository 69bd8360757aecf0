package claude

import "github.com/agwatch/ag/providers/provider"

var _ provider.Attacher = (*Provider)(nil)

// AttachArgv is `claude attach <job>`, which shows a background session in
// a terminal and passes it the keys typed there; its window closed (or the
// process killed), the session runs on as it was (Claude Code 2.1.332).
func (*Provider) AttachArgv(bin, job string) []string {
	if bin == "" {
		bin = "claude"
	}
	return []string{bin, "attach", job}
}

// AttachEnv: the daemon that runs the session is found through the config
// dir (and HOME, its default's parent).
func (*Provider) AttachEnv() []string { return []string{"CLAUDE_CONFIG_DIR", "HOME"} }
