package qwen

import "github.com/agwatch/ag/providers/provider"

var _ provider.Commanded = (*Provider)(nil)

// Commands are Qwen Code's command lines (0.24.4 `qwen --help`). A
// positional prompt runs one turn and exits ("Defaults to one-shot"): an
// interactive session with a first prompt is -i/--prompt-interactive.
// --resume takes the session id (sessions are kept per project folder);
// --fork-session with it gives the new process a session of its own.
func (*Provider) Commands() provider.Commands {
	return provider.Commands{
		Bin:       "qwen",
		Resume:    "{bin} --resume '{id}'",
		Spawn:     "{bin} -i '{prompt}'",
		Fork:      "{bin} --resume '{id}' --fork-session",
		ModelFlag: "--model",
	}
}
