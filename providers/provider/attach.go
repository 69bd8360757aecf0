package provider

// Attacher is an agent whose background sessions (no terminal of their
// own: event.WhereBackground) a terminal can show, and take keys through:
// Claude Code's `claude attach <job>`. ag-keys runs it in a tmux window to
// answer such a session's wait, or to open the session for the user.
type Attacher interface {
	Provider
	// AttachArgv is the command line that shows background session job,
	// run with the agent's program at bin ("": its usual name on $PATH).
	AttachArgv(bin, job string) []string
	// AttachEnv names the variables of the session's own environment the
	// command needs to find the session (where the agent keeps its state).
	AttachEnv() []string
}
