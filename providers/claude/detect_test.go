package claude

import (
	"os"
	"path/filepath"
	"testing"
)

// The processes Claude Code 2.1.332 runs, as seen here (ps, /proc/PID/exe
// and cmdline) with `claude`, `claude --bg`, `claude attach` and the agent
// view; the npm package's native binary is exe throughout.
const (
	exe     = "/c/claude-2.1.332/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
	bin     = "/c/claude-2.1.332/node_modules/.bin/claude"
	sock    = "/tmp/cc-daemon-0/25fa7b98/spare/47819996"
	session = "5db6b5b0-0e47-4012-b6d9-97b8773d970b"
)

// TestProcShapes: which of Claude Code's processes is a session ag-detect
// reports for a pane, which one shows a background session, and which are
// the background machinery (never an agent).
func TestProcShapes(t *testing.T) {
	tests := []struct {
		name  string
		exe   string
		argv  []string
		shape string
		match bool // ag-detect reports it as Claude
	}{
		{"native binary through the npm bin link", exe, []string{bin}, ShapeSession, true},
		{"with options", exe, []string{"claude", "--permission-mode", "manual"}, ShapeSession, true},
		{"with a prompt", exe, []string{"claude", "fix the failing test"}, ShapeSession, true},
		{"a prompt after --", exe, []string{"claude", "--", "--bg"}, ShapeSession, true},
		{"resumed", exe, []string{"claude", "--resume", session}, ShapeSession, true},
		{"print mode", exe, []string{"claude", "-p", "say hello"}, ShapeSession, true},
		{"before the native binary: node cli.js", "/usr/bin/node", []string{"node", "/c/node_modules/@anthropic-ai/claude-code/cli.js"}, ShapeSession, true},
		{"daemon", exe, []string{exe, "daemon", "run", "--origin", "transient", "--spawned-by", `{"label":"claude --bg","cwd":"/w","pid":2970}`}, ShapeDaemon, false},
		{"pty host", exe, []string{"claude", "bg-pty-host", "--bg-pty-host", sock + ".pty.sock", "200", "50", "--", exe, "--bg-spare", sock + ".claim.sock"}, ShapePtyHost, false},
		{"spare, as started", exe, []string{exe, "--bg-spare", sock + ".claim.sock"}, ShapeSpare, false},
		{"spare, renamed (also once it runs a session)", exe, []string{"claude", "bg-spare", "--bg-spare", sock + ".claim.sock"}, ShapeSpare, false},
		{"attach", exe, []string{"claude", "attach", "5db6b5b0"}, ShapeAttach, true},
		{"attach by its path (ag-keys)", exe, []string{exe, "attach", "5db6b5b0"}, ShapeAttach, true},
		{"agent view (also after ← in attach)", exe, []string{exe, "agents"}, ShapeCommand, false},
		{"agents --json", exe, []string{"claude", "agents", "--json"}, ShapeCommand, false},
		{"logs", exe, []string{"claude", "logs", "5db6b5b0"}, ShapeCommand, false},
		{"stop", exe, []string{"claude", "stop", "5db6b5b0"}, ShapeCommand, false},
		{"respawn", exe, []string{"claude", "respawn", "--all"}, ShapeCommand, false},
		{"--bg hands over and exits", exe, []string{"claude", "--bg", "say hi"}, ShapeLauncher, false},
		{"--background too", exe, []string{"claude", "--permission-mode", "manual", "--background", "say hi"}, ShapeLauncher, false},
	}
	rules := New().ProcRules()
	for _, tc := range tests {
		if got := Shape(tc.argv); got != tc.shape {
			t.Errorf("%s: Shape %q, want %q", tc.name, got, tc.shape)
		}
		if got := rules.Match(tc.exe, tc.argv).OK; got != tc.match {
			t.Errorf("%s: Match %v, want %v", tc.name, got, tc.match)
		}
	}
}

// TestViewer: `claude attach <job>` names the session the daemon's record
// of the job holds, in the config dir the process's environment names.
func TestViewer(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, "cfg")
	job := filepath.Join(cfg, "jobs", "5db6b5b0")
	if err := os.MkdirAll(job, 0o700); err != nil {
		t.Fatal(err)
	}
	state := `{"state":"blocked","sessionId":"` + session + `","daemonShort":"5db6b5b0","cwd":"/w"}`
	if err := os.WriteFile(filepath.Join(job, "state.json"), []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(cfg, "jobs", "0badf00d"), 0o700)
	os.WriteFile(filepath.Join(cfg, "jobs", "0badf00d", "state.json"), []byte(`{"sessionId":`), 0o600)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	withCfg := env(map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": cfg})
	tests := []struct {
		name      string
		argv      []string
		getenv    func(string) string
		job, sess string
	}{
		{"attach", []string{"claude", "attach", "5db6b5b0"}, withCfg, "5db6b5b0", session},
		{"a job with no record", []string{"claude", "attach", "0000aaaa"}, withCfg, "0000aaaa", ""},
		{"a damaged record", []string{"claude", "attach", "0badf00d"}, withCfg, "0badf00d", ""},
		{"~/.claude without CLAUDE_CONFIG_DIR", []string{"claude", "attach", "5db6b5b0"}, env(map[string]string{"HOME": home}), "5db6b5b0", ""},
		{"a name, not a job", []string{"claude", "attach", "fake session"}, withCfg, "", ""},
		{"a path, not a job", []string{"claude", "attach", "../../etc"}, withCfg, "", ""},
		{"no job", []string{"claude", "attach"}, withCfg, "", ""},
		{"a session", []string{"claude"}, withCfg, "", ""},
	}
	for _, tc := range tests {
		job, sess := Viewer(tc.argv, tc.getenv)
		if job != tc.job || sess != tc.sess {
			t.Errorf("%s: Viewer %q %q, want %q %q", tc.name, job, sess, tc.job, tc.sess)
		}
	}
}
