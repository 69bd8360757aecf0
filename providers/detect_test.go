package providers_test

import (
	"testing"

	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

// match is what ag-detect does: the providers' rules in order, first
// match wins.
func match(exe string, argv ...string) string {
	for _, p := range providers.All() {
		if d, ok := p.(provider.ProcDetector); ok && d.ProcRules().Match(exe, argv).OK {
			return p.ID()
		}
	}
	return ""
}

// TestDetectNewAgents: the process shapes OpenCode, Pi and omp have here
// (agents-live.md process table; omp 18.2.3 from npm), and what must not
// match.
func TestDetectNewAgents(t *testing.T) {
	for _, tc := range []struct {
		name, exe string
		argv      []string
		want      string
	}{
		{"opencode from npm", "/c/node_modules/opencode-ai/bin/opencode.exe", []string{"/c/node_modules/.bin/opencode"}, "opencode"},
		{"opencode resumed", "/usr/local/bin/opencode", []string{"opencode", "-s", "ses_1"}, "opencode"},
		{"pi after process.title", "/usr/bin/node", []string{"pi"}, "pi"},
		{"pi before it", "/usr/bin/node", []string{"node", "/c/node_modules/@mariozechner/pi-coding-agent/dist/cli.js"}, "pi"},
		{"omp: npm's bun shim", "/c/node_modules/bun/bin/bun.exe", []string{"bun", "/c/node_modules/.bin/omp", "--model", "x"}, "omp"},
		{"omp: mise's", "/h/.bun/bin/bun", []string{"bun", "/h/.local/share/mise/installs/node/26/bin/omp"}, "omp"},
		{"omp: its cli.js, before pi", "/usr/bin/bun", []string{"bun", "/c/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js"}, "omp"},
		{"omp standalone", "/usr/local/bin/omp", []string{"omp"}, "omp"},
		{"not: ompx", "/usr/bin/bun", []string{"bun", "/c/bin/ompx"}, ""},
		{"not: pip", "/usr/bin/pip", []string{"pip", "install", "pi"}, ""},
		{"not: a prompt that says pi", "/usr/bin/vim", []string{"vim", "pi"}, ""},
		{"not: opencode in an argument", "/usr/bin/less", []string{"less", "opencode.log"}, ""},
	} {
		if got := match(tc.exe, tc.argv...); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestManySessions: only OpenCode's process hosts several sessions; Pi
// and omp run one at a time.
func TestManySessions(t *testing.T) {
	for id, want := range map[string]bool{"opencode": true, "pi": false, "omp": false, "claude": false, "nope": false} {
		if got := providers.ManySessionsPerProcess(id); got != want {
			t.Errorf("%s: %v", id, got)
		}
	}
	for id, want := range map[string]bool{"opencode": false, "pi": true, "omp": true} {
		if got := providers.OneSessionPerProcess(id); got != want {
			t.Errorf("one session %s: %v", id, got)
		}
	}
}
