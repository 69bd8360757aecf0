package providers_test

import (
	"testing"

	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

// TestDetectLongTail: the long tail's built-in definitions take their
// agents' processes as their packaging starts them (doc/agents/long-tail.md
// says where each shape is from: seen for Kimi Code, read for the others),
// and nothing else of the same name's neighbourhood.
func TestDetectLongTail(t *testing.T) {
	for _, tc := range []struct {
		name, exe string
		argv      []string
		want      string
		launcher  bool
	}{
		// Seen: npm's kimi, before and after it sets its process title.
		{"kimi from npm", "/usr/bin/node", []string{"node", "/c/node_modules/.bin/kimi"}, "kimi", false},
		{"kimi titled", "/usr/bin/node", []string{"kimi-code"}, "kimi", false},
		{"kimi native", "/h/.local/bin/kimi", []string{"kimi"}, "kimi", false},
		{"kimi-cli, the Python one", "/usr/bin/python3.12", []string{"/h/.local/share/uv/tools/kimi-cli/bin/python", "/h/.local/bin/kimi"}, "kimi", false},
		// Python entry points: the script under the venv's python.
		{"aider from pipx", "/usr/bin/python3.12", []string{"/h/.local/pipx/venvs/aider-chat/bin/python", "/h/.local/bin/aider", "--model", "x"}, "aider", false},
		{"aider as a module", "/usr/bin/python3.11", []string{"python3", "-m", "aider"}, "aider", false},
		{"openhands from uv", "/usr/bin/python3.12", []string{"/h/.local/share/uv/tools/openhands/bin/python", "/h/.local/bin/openhands"}, "openhands", false},
		{"openhands binary", "/h/.local/bin/openhands", []string{"openhands"}, "openhands", false},
		{"hermes", "/usr/bin/python3.14", []string{"/h/.hermes/venv/bin/python3", "/h/.local/bin/hermes"}, "hermes", false},
		{"hermes as a module", "/opt/py/bin/python3.14", []string{"python3", "-m", "hermes_cli.main"}, "hermes", false},
		{"mistral vibe", "/usr/bin/python3.12", []string{"/h/.local/share/uv/tools/mistral-vibe/bin/python", "/h/.local/bin/vibe"}, "vibe", false},
		// Native binaries.
		{"goose", "/h/.local/bin/goose", []string{"goose", "session"}, "goose", false},
		{"kiro-cli", "/h/.local/bin/kiro-cli", []string{"kiro-cli"}, "kiro", false},
		{"kiro's chat", "/h/.local/bin/kiro-cli-chat", []string{"kiro-cli-chat", "chat"}, "kiro", false},
		{"amazon q's chat", "/h/.local/bin/qchat", []string{"qchat", "chat"}, "kiro", false},
		{"amp from npm", "/c/node_modules/@ampcode/cli/bin/amp.exe", []string{"/c/node_modules/.bin/amp"}, "amp", false},
		{"amp installed", "/h/.local/bin/amp", []string{"amp"}, "amp", false},
		// npm launchers.
		{"codebuff's launcher", "/usr/bin/node", []string{"node", "/usr/lib/node_modules/codebuff/index.js"}, "codebuff", true},
		{"codebuff's binary", "/h/.config/manicode/codebuff", []string{"/h/.config/manicode/codebuff"}, "codebuff", false},
		{"qodo", "/usr/bin/node", []string{"node", "/c/node_modules/@qodo/command/bin/qodo.js"}, "qodo", false},
		// Not them.
		{"not: a bare q", "/usr/bin/q", []string{"q", "select 1"}, "", false},
		{"not: aider in an argument", "/usr/bin/vim", []string{"vim", "aider.md"}, "", false},
		{"not: a python script of another name", "/usr/bin/python3", []string{"python3", "/h/bin/goosey"}, "", false},
		{"not: python running pip", "/usr/bin/python3", []string{"python3", "-m", "pip", "install", "aider-chat"}, "", false},
	} {
		id, launcher := "", false
		for _, p := range providers.All() {
			if d, ok := p.(provider.ProcDetector); ok {
				if m := d.ProcRules().Match(tc.exe, tc.argv); m.OK {
					id, launcher = p.ID(), m.Launcher
					break
				}
			}
		}
		if id != tc.want || launcher != tc.launcher {
			t.Errorf("%s: %q (launcher %v), want %q (launcher %v)", tc.name, id, launcher, tc.want, tc.launcher)
		}
	}
}
