package claudehook

// Claude Code 2.1.332's background sessions (claude --bg, agent view) run
// in a pty the daemon owns. Their hooks run with CLAUDE_JOB_DIR set to
// $CLAUDE_CONFIG_DIR/jobs/<job> (interactive sessions have none) and
// CLAUDE_PID naming the session's process, a claimed "claude bg-spare"
// (Dialect.Background).
const (
	EnvJobDir = "CLAUDE_JOB_DIR"
	EnvPID    = "CLAUDE_PID"
)
