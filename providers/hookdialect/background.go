package hookdialect

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// Background is how a hook tells it runs in a background session, one with
// no terminal of its own (Claude Code 2.1.332's claude --bg: its daemon
// runs the session in a pty it owns).
type Background struct {
	// JobDirEnv names the variable set only there, to a folder named
	// after the session's job (CLAUDE_JOB_DIR: $CLAUDE_CONFIG_DIR/jobs/<job>).
	JobDirEnv string `toml:"job_dir_env"`
	// PIDEnv names the variable holding the session's process
	// (CLAUDE_PID).
	PIDEnv string `toml:"pid_env"`
}

// background marks e as a background session's (Background.Mark).
func (d *Dialect) background(e *event.Event, hc *provider.HookContext) { d.Background.Mark(e, hc) }

// Mark marks e as a background session's when the hook (or status line)
// runs in one: where and job set, the pid the agent names, and no pane:
// $TMUX_PANE there is whatever the shell that started the agent's daemon
// had.
func (b Background) Mark(e *event.Event, hc *provider.HookContext) {
	if b.JobDirEnv == "" {
		return
	}
	dir := hc.Env(b.JobDirEnv)
	if dir == "" {
		return
	}
	job := filepath.Base(filepath.Clean(dir))
	if !JobID(job) {
		return
	}
	e.Where, e.Job, e.Pane = event.WhereBackground, job, ""
	if b.PIDEnv == "" {
		return
	}
	if pid, err := strconv.Atoi(hc.Env(b.PIDEnv)); err == nil && pid > 0 {
		e.PID = pid
	}
}

// JobID reports whether s looks like a background session's short id
// (Claude's are 8 lower-case hex digits): letters, digits, - and _.
func JobID(s string) bool {
	if len(s) < 4 || len(s) > 32 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// mode is ag's name of the payload's permission_mode ("" for none).
func (d *Dialect) mode(v string) string {
	if v == "" || d.Modes == nil {
		return ""
	}
	if m, ok := d.Modes[v]; ok {
		return m
	}
	return event.Clamp(strings.ToLower(v), 40)
}

// unchecked reports whether a question notification's message is the
// agent's hold before an action it could not check (Dialect.Unchecked).
func (d *Dialect) unchecked(msg string) bool {
	for _, p := range d.Unchecked {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
