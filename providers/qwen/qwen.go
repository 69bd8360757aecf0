// Package qwen is the Qwen Code provider (@qwen-code/qwen-code, a fork of
// Gemini CLI): hook install into ~/.qwen/settings.json through Claude's
// hook dialect, the chat transcripts, detection data, pane rules, key maps
// and command lines. The hook mapping is qwenhook's, which ag-hook links
// alone. Verified on 0.24.4 (doc/agents/qwen.md).
package qwen

import (
	"path/filepath"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/hookdialect/hooksettings"
	"github.com/agwatch/ag/providers/provider"
	"github.com/agwatch/ag/providers/qwen/qwenhook"
)

// ID is Qwen Code's agent id in events.
const ID = qwenhook.ID

// Provider is Qwen Code. Its install is the dialect's settings.json edit,
// its status line's ui.statusLine wrapped.
type Provider struct {
	hooksettings.Installer
	hooksettings.StatusLine
}

// New returns the Qwen Code provider.
func New() *Provider {
	d := qwenhook.Dialect()
	return &Provider{hooksettings.Installer{D: d}, hooksettings.StatusLine{D: d}}
}

func (*Provider) ID() string   { return ID }
func (*Provider) Name() string { return "Qwen Code" }

var (
	_ provider.Hooked      = (*Provider)(nil)
	_ provider.Installer   = (*Provider)(nil)
	_ provider.HookEnds    = (*Provider)(nil)
	_ provider.StatusLiner = (*Provider)(nil)
)

// OneSessionPerProcess: a qwen process runs one chat at a time; /clear
// and /resume move it to another.
func (*Provider) OneSessionPerProcess() bool { return true }

// HookEndsTurns: Stop ends every turn that ends well, and idle_prompt the
// others; the chat's own end of a turn is an answer that made no call.
func (*Provider) HookEndsTurns() bool { return true }

// MapHook maps one hook payload (qwenhook's dialect).
func (*Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return qwenhook.Dialect().MapHook(raw, hc)
}

// ProcessNames are Qwen Code's comm names (see qwenhook).
func (*Provider) ProcessNames() []string { return qwenhook.Dialect().Processes }

// Dir is Qwen's folder, ~/.qwen.
func Dir(env paths.Env) string { return filepath.Join(paths.Home(env), ".qwen") }
