package opencode

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWindows: a model's window comes from the user's config (JSONC with
// comments too), else from OpenCode's models.dev list; a changed file is
// read again.
func TestWindows(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	cfg := filepath.Join(home, ".config", "opencode")
	cache := filepath.Join(home, ".cache", "opencode")
	os.MkdirAll(cfg, 0o700)
	os.MkdirAll(cache, 0o700)
	os.WriteFile(filepath.Join(cache, "models.json"), []byte(`{"anthropic":{"models":{"claude-x":{"limit":{"context":200000,"output":8192}}}},"fake":{"models":{"fake-model":{"limit":{"context":1}}}}}`), 0o600)
	os.WriteFile(filepath.Join(cfg, "opencode.jsonc"), []byte("// mine\n{\"provider\":{\"fake\":{/* local */\"models\":{\"fake-model\":{\"limit\":{\"context\":128000}}}}}, \"x\":\"a // not a comment\"}"), 0o600)
	w := newWindows(env)
	for model, want := range map[string]int64{"fake/fake-model": 128000, "anthropic/claude-x": 200000, "openai/gpt": 0} {
		if got := w.size(model); got != want {
			t.Errorf("%s: %d, want %d", model, got, want)
		}
	}
	os.WriteFile(filepath.Join(cfg, "opencode.jsonc"), []byte(`{"provider":{"fake":{"models":{"fake-model":{"limit":{"context":64000}}}}}}`), 0o600)
	os.Chtimes(filepath.Join(cfg, "opencode.jsonc"), time1, time1)
	if got := w.size("fake/fake-model"); got != 64000 {
		t.Errorf("after the config changed: %d", got)
	}
}

var time1 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
