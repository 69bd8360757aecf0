package claude

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/providers/hookdialect"
	"github.com/agwatch/ag/providers/provider"
)

// ProcRules: how Claude Code runs. The npm package's bin is a native
// (Bun-built) binary: argv[0] is whatever was run (…/node_modules/.bin/claude,
// a symlink), /proc/PID/exe is …/@anthropic-ai/claude-code/bin/claude.exe and
// comm is "claude". Older releases ran under node as `node …/claude-code/cli.js`,
// which is the agent itself, not a launcher. The native binary starts a
// short-lived `claude.exe` helper child, which must not be reported instead.
// The same binary also runs the background-session machinery and the
// subcommands, which are no session (Shape says which is which), and
// `claude attach <job>`, which shows a background session (Viewer).
func (*Provider) ProcRules() provider.ProcRules {
	return provider.ProcRules{
		Names:  []string{"claude", "claude-code"},
		Paths:  []string{"/claude-code/", "/@anthropic-ai/claude-code"}, // also the native -linux-x64 packages
		Helper: func(argv []string) bool { s := Shape(argv); return s != ShapeSession && s != ShapeAttach },
		Viewer: Viewer,
	}
}

// Process shapes of Claude Code 2.1.332, by command line.
const (
	ShapeSession  = "session"  // claude [options] [prompt]: an interactive session
	ShapeDaemon   = "daemon"   // claude.exe daemon run …: the background-session supervisor
	ShapePtyHost  = "pty-host" // claude bg-pty-host --bg-pty-host SOCK W H -- …: owns a session's pty
	ShapeSpare    = "spare"    // claude bg-spare --bg-spare SOCK: a spare, or a background session once claimed
	ShapeAttach   = "attach"   // claude attach <job>: shows a background session in a terminal
	ShapeCommand  = "command"  // claude agents, logs, stop, mcp, …: a subcommand, no session
	ShapeLauncher = "launcher" // claude --bg PROMPT: hands the session to the daemon and exits
)

// subcommands are Claude Code's (claude --help, 2.1.332): a first argument
// that is one of them is that command, never a prompt — as Claude itself
// reads it.
var subcommands = map[string]bool{
	"agents": true, "auth": true, "auto-mode": true, "doctor": true, "gateway": true,
	"import": true, "install": true, "logs": true, "mcp": true, "plugin": true, "plugins": true,
	"purge": true, "respawn": true, "rm": true, "setup-token": true, "stop": true, "kill": true,
	"ultrareview": true, "update": true, "upgrade": true, "config": true, "migrate-installer": true,
}

// Shape says what a Claude Code process is, from its command line: the
// first argument names the daemon, its pty hosts and spares, attach and
// the other subcommands; anything else (options, a prompt) is a session.
// A claimed spare runs a background session, but it is never in a tmux
// pane: its session is known from its hooks, never from detection.
func Shape(argv []string) string {
	if len(argv) < 2 {
		return ShapeSession
	}
	switch a := argv[1]; {
	case a == "daemon":
		return ShapeDaemon
	case a == "bg-pty-host" || a == "--bg-pty-host":
		return ShapePtyHost
	case a == "bg-spare" || a == "--bg-spare":
		return ShapeSpare
	case a == "attach":
		return ShapeAttach
	case subcommands[a]:
		return ShapeCommand
	}
	for _, a := range argv[1:] {
		if a == "--bg" || a == "--background" {
			return ShapeLauncher
		}
		if a == "--" {
			break
		}
	}
	return ShapeSession
}

// Viewer reads `claude attach <job>`: the job, and the session it shows,
// looked up in $CLAUDE_CONFIG_DIR/jobs/<job>/state.json (else
// ~/.claude/...), where Claude's daemon keeps each background session.
// A name (attach takes part of one too) or a job with no such file gives
// the job alone, or nothing.
func Viewer(argv []string, getenv func(string) string) (job, session string) {
	if Shape(argv) != ShapeAttach || len(argv) < 3 || !hookdialect.JobID(argv[2]) {
		return "", ""
	}
	job = argv[2]
	dir := getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return job, ""
		}
		dir = filepath.Join(home, ".claude")
	}
	return job, JobSession(dir, job)
}

// JobSession is the session id the daemon's record of job holds ("" when
// there is none): Claude Code 2.1.332 keeps $CLAUDE_CONFIG_DIR/jobs/<job>/
// state.json with "sessionId" and "daemonShort".
func JobSession(configDir, job string) string {
	if !hookdialect.JobID(job) {
		return ""
	}
	f, err := os.Open(filepath.Join(configDir, "jobs", job, "state.json"))
	if err != nil {
		return ""
	}
	defer f.Close()
	var st struct {
		SessionID string `json:"sessionId"`
	}
	// A record is a few hundred bytes; a damaged or huge one says nothing.
	if json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&st) != nil || strings.ContainsAny(st.SessionID, "/\\ \t\n") {
		return ""
	}
	return st.SessionID
}
