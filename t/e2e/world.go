//go:build e2e

package e2e

import (
	"testing"
	"time"

	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/t/fakeapi/anthropic"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// loginWorld is one agent in a tmux pane with ag's hooks installed and the
// login pipeline, `ag-tail --follow | ag-fold` (no pane detection),
// watching: what most users run.
type loginWorld struct {
	h   *Harness
	bin string
	tm  *Tmux
	pl  *Pipeline
	p   *Pane    // the agent's pane, at its idle composer
	s   *Session // the agent's first session
}

// newClaudeWorld starts Claude Code (against the fake Anthropic server,
// returned) in a pane named name.
func newClaudeWorld(t *testing.T, name string) (*loginWorld, *anthropic.Server) {
	t.Helper()
	bin := Install(t, Claude)
	CheckVersion(t, bin, Claude.Version)
	h := New(t)
	api := h.FakeAnthropic()
	h.ClaudeConfig()
	w := &loginWorld{h: h, bin: bin}
	w.start(claude.ID, func() *Pane { return h.StartClaude(w.tm, name, bin) })
	return w, api
}

// newCodexWorld starts Codex (against the fake OpenAI server, returned) in
// a pane named name.
func newCodexWorld(t *testing.T, name string, opts openai.Options) (*loginWorld, *openai.Server) {
	t.Helper()
	bin := Install(t, Codex)
	CheckVersion(t, bin, Codex.Version)
	h := New(t)
	api := h.FakeOpenAI(opts)
	h.CodexConfig(bin, api)
	w := &loginWorld{h: h, bin: bin}
	w.start(codex.ID, func() *Pane { return h.StartCodex(w.tm, name, bin) })
	return w, api
}

func (w *loginWorld) start(agent string, pane func() *Pane) {
	w.h.T.Helper()
	w.h.Run(30*time.Second, Bin(w.h.T, "ag-hook"), "install", "--agent", agent)
	w.pl = w.h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	w.tm = w.h.StartTmux()
	w.p = pane()
	w.s = w.pl.Out.Session(agent, "")
}
