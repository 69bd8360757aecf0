//go:build e2e

package e2e

import (
	"time"

	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Grok is the release of the community Grok CLI these tests pin: an agent
// ag knows from a definition file (providers/agentdef/builtin/grok.toml).
var Grok = NPMPackage{Name: "@vibe-kit/grok-cli", Version: "0.0.34", Bin: "grok", Dir: "grok-0.0.34"}

// GrokReady is its composer's placeholder.
const GrokReady = "Ask me anything..."

// StartGrok runs grok on the fake model (Chat Completions, from its
// environment) in a new pane and waits for its composer to take keys.
func (h *Harness) StartGrok(tm *Tmux, name, bin string, api *chat.Server) *Pane {
	h.T.Helper()
	env := []string{"GROK_API_KEY=fake", "GROK_BASE_URL=" + api.URL + "/v1", "GROK_MODEL=fake-model"}
	p := tm.NewPane(name, h.Project, env, bin)
	p.WaitText(90*time.Second, GrokReady, "fake-model")
	p.WaitRaw(30 * time.Second)
	return p
}
