package provider

import (
	"regexp"
	"testing"
)

func TestProcRulesMatch(t *testing.T) {
	claude := ProcRules{Names: []string{"claude"}, Paths: []string{"/claude-code/"}}
	// Codex-like: a node launcher whose child is the native binary.
	codex := ProcRules{Names: []string{"codex"}, Prefixes: []string{"codex-"}, Paths: []string{"/@openai/codex/"},
		Not: []string{"codex-code-mode-host"}, LauncherInterpreters: []string{"node"}}
	// agy-like: a name another program's launcher also goes by.
	agy := ProcRules{Names: []string{"agy"}, NotNames: []string{"antigravity"}}
	// Cline-like: the same binary runs a daemon that is no session.
	cline := ProcRules{Names: []string{"cline"}, NotArgs: []string{"--cline-hub-daemon"}}
	for _, tc := range []struct {
		name string
		r    ProcRules
		exe  string
		argv []string
		want ProcMatch
	}{
		{"native by argv0", claude, "/opt/x/claude.exe", []string{"/home/u/node_modules/.bin/claude"}, ProcMatch{OK: true}},
		{"native by exe path", claude, "/n/@anthropic-ai/claude-code/bin/claude.exe", []string{"cc"}, ProcMatch{OK: true}},
		{"argv0 plain name", claude, "/usr/bin/sleep", []string{"claude", "600"}, ProcMatch{OK: true}},
		{"node cli.js is the agent", claude, "/usr/bin/node", []string{"node", "/x/node_modules/@anthropic-ai/claude-code/cli.js"}, ProcMatch{OK: true}},
		{"node flags before the script", claude, "/usr/bin/node", []string{"node", "--max-old-space-size=4096", "/x/claude-code/cli.js"}, ProcMatch{OK: true}},
		{"upper case", claude, "", []string{"/Apps/CLAUDE"}, ProcMatch{OK: true}},
		{"a file argument is no agent", claude, "/usr/bin/vim", []string{"vim", "claude"}, ProcMatch{}},
		{"a later argument is no agent", claude, "/usr/bin/node", []string{"node", "server.js", "claude"}, ProcMatch{}},
		{"claude.md", claude, "/usr/bin/less", []string{"less", "claude.md"}, ProcMatch{}},
		{"nothing", claude, "", nil, ProcMatch{}},
		{"node launcher", codex, "/usr/bin/node", []string{"node", "/p/node_modules/.bin/codex", "--yolo"}, ProcMatch{OK: true, Launcher: true}},
		{"native child", codex, "/p/node_modules/@openai/codex-linux-x64/vendor/bin/codex", []string{"/p/.../codex", "--yolo"}, ProcMatch{OK: true}},
		{"prefix", codex, "/usr/local/bin/codex-x86_64-unknown-linux-musl", []string{"codex-x86_64-unknown-linux-musl"}, ProcMatch{OK: true}},
		{"excluded helper", codex, "/p/bin/codex-code-mode-host", []string{"codex-code-mode-host"}, ProcMatch{}},
		{"interpreter path itself", codex, "/opt/codex/node", []string{"/opt/codex/node", "x.js"}, ProcMatch{}},
		{"same name, another program", agy, "/Applications/Antigravity.app/Contents/Resources/app/bin/antigravity", []string{"/usr/local/bin/agy"}, ProcMatch{}},
		{"the name itself", agy, "/home/u/.local/bin/agy", []string{"agy", "-i", "x"}, ProcMatch{OK: true}},
		{"a daemon of the same binary", cline, "/n/@cline/cli-linux-x64/bin/cline", []string{"/n/@cline/cli-linux-x64/bin/cline", "--cline-hub-daemon", "--cwd", "/p"}, ProcMatch{}},
		{"the session itself", cline, "/n/@cline/cli-linux-x64/bin/cline", []string{"cline", "--id", "1_x"}, ProcMatch{OK: true}},
		{"a prompt that names the flag", cline, "/usr/bin/cline", []string{"cline", "-m", "m", "-c", "/p", "-v", "-i", "x", "--cline-hub-daemon"}, ProcMatch{OK: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Match(tc.exe, tc.argv); got != tc.want {
				t.Errorf("Match(%q, %q) = %+v, want %+v", tc.exe, tc.argv, got, tc.want)
			}
		})
	}
}

func TestScriptArg(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"node", "a.js"}, "a.js"},
		{[]string{"node", "--inspect", "-r", "x"}, "x"},
		{[]string{"node"}, ""},
		{[]string{"node", "-a", "-b", "-c", "-d", "-e", "late.js"}, ""},
	} {
		if got := ScriptArg(tc.argv); got != tc.want {
			t.Errorf("ScriptArg(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}

// TestRuntimesPatterns: an agent's own runtimes have their script looked
// at (python is no interpreter for the others), patterns match whole
// tokens, and Why names the token and the rule.
func TestRuntimesPatterns(t *testing.T) {
	aider := ProcRules{Names: []string{"aider"}, Runtimes: []string{"python3"},
		Patterns: []*regexp.Regexp{regexp.MustCompile(`/aider-chat/.*/main\.py$`)}}
	for _, tc := range []struct {
		exe  string
		argv []string
		r    ProcRules
		ok   bool
		why  string
	}{
		{"/usr/bin/python3", []string{"python3", "/home/u/.local/bin/aider", "--yes"}, aider, true, "the script python3 runs /home/u/.local/bin/aider: name aider"},
		{"/usr/bin/python3", []string{"python3", "-m", "aider"}, aider, true, "the script python3 runs aider: name aider"},
		{"/usr/bin/python3", []string{"python3", "/v/aider-chat/x/main.py"}, aider, true, "the script python3 runs /v/aider-chat/x/main.py: pattern /aider-chat/.*/main\\.py$"},
		{"/usr/bin/python3", []string{"python3", "/home/u/.local/bin/aider"}, ProcRules{Names: []string{"aider"}}, false, ""},
		{"/usr/local/bin/aider", []string{"aider"}, aider, true, "executable /usr/local/bin/aider: name aider"},
	} {
		if got := tc.r.Match(tc.exe, tc.argv); got.OK != tc.ok {
			t.Errorf("Match(%q, %q) = %+v, want OK %v", tc.exe, tc.argv, got, tc.ok)
		}
		if got := tc.r.Why(tc.exe, tc.argv); got != tc.why {
			t.Errorf("Why(%q, %q) = %q, want %q", tc.exe, tc.argv, got, tc.why)
		}
	}
}
