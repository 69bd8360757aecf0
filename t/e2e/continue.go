//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Continue is the release of Continue's CLI (cn) these tests pin: an agent
// ag knows from a definition file, not a Go package
// (providers/agentdef/builtin/continue.toml).
var Continue = NPMPackage{Name: "@continuedev/cli", Version: "1.5.47", Bin: "cn", Dir: "continue-1.5.47"}

// ContinueReady is its composer's placeholder, ContinueModel the banner
// line naming the model. cn draws its composer alone at the top of the
// screen first, then the banner above it: an Enter typed before the
// banner is drawn is lost (the prompt stays in the composer, a new line
// under it), three times in five starts here.
const (
	ContinueReady = "Ask anything, @ for context"
	ContinueModel = "Model: fake-model"
)

// ContinueConfig writes a config.yaml with the fake model (Chat
// Completions) and turns off what would reach the network. It returns the
// file, which cn takes with --config.
func (h *Harness) ContinueConfig(api *chat.Server) string {
	h.T.Helper()
	path := filepath.Join(h.Root, "continue.yaml")
	cfg := fmt.Sprintf(`name: fake
version: 1.0.0
schema: v1
models:
  - name: fake-model
    provider: openai
    model: fake-model
    apiBase: %s/v1
    apiKey: fake
    roles: [chat, edit, apply]
`, api.URL)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Setenv("CONTINUE_CLI_ENABLE_TELEMETRY", "0")
	h.Setenv("CONTINUE_METRICS_ENABLED", "0")
	return path
}

// StartContinue runs cn on the fake model in a new pane and waits for its
// composer.
func (h *Harness) StartContinue(tm *Tmux, name, bin, config string, args ...string) *Pane {
	h.T.Helper()
	p := tm.NewPane(name, h.Project, nil, append([]string{bin, "--config", config}, args...)...)
	p.WaitText(90*time.Second, ContinueModel, ContinueReady)
	return p
}
