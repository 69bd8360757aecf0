//go:build e2e

package e2e

import (
	"time"

	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Letta is the release of Letta Code these tests pin: an agent ag knows
// from a definition file (providers/agentdef/builtin/letta.toml). Later
// releases (0.30.28 to 0.32.18) depend on packages the registry does not
// have (@letta-ai/trajectory, @letta-ai/letta-agent-sdk, a
// @janhapke/sharp-electron version) and do not install.
var Letta = NPMPackage{Name: "@letta-ai/letta-code", Version: "0.25.9", Bin: "letta", Dir: "letta-0.25.9"}

// StartLetta runs letta on its local backend (the agent runs in the CLI,
// its model the fake's, as an LM Studio provider) in a new pane, waits
// for its composer, and turns on "standard (request approval)" mode
// (shift+Tab twice): by default it asks for nothing.
func (h *Harness) StartLetta(tm *Tmux, name, bin string, api *chat.Server) *Pane {
	h.T.Helper()
	env := []string{"LMSTUDIO_BASE_URL=" + api.URL + "/v1", "LMSTUDIO_API_KEY=fake"}
	p := tm.NewPane(name, h.Project, env, bin, "--backend", "local")
	p.WaitText(120*time.Second, "Press / for commands", "Letta Code [")
	p.WaitRaw(30 * time.Second)
	p.Keys("BTab")
	p.WaitText(10*time.Second, "accept edits (shift+tab to cycle)")
	p.Keys("BTab")
	p.WaitText(10*time.Second, "standard (request approval) mode")
	return p
}
