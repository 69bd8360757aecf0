package claude

import "github.com/agwatch/ag/providers/provider"

// Commands are Claude Code's command lines. The prompt is positional
// ("claude [options] [command] [prompt]" starts an interactive session;
// -p/--print would run one turn and exit). Fork resumes by transcript path,
// which works from any directory (--resume <id> is scoped to the repo),
// and --fork-session gives the new process its own session id. Every
// built-in agent takes --model.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "claude",
		Resume:    "{bin} --resume '{id}'",
		Spawn:     "{bin} '{prompt}'",
		Fork:      "{bin} --resume '{path}' --fork-session",
		ModelFlag: "--model",
	}
}
