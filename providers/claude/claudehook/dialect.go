// Package claudehook maps Claude Code's hook and statusLine payloads to
// events: what ag-hook runs, apart from the rest of the Claude provider
// (config editing, transcripts, pane rules), so the hook binary links
// none of that. providers/claude delegates here. Claude's hook shape is
// the one hookdialect maps; Dialect is Claude's own variant of it.
package claudehook

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/hookdialect"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Claude Code's agent id in events.
const ID = "claude"

// Hook event names (hook_event_name) that ag maps, in the order a turn
// meets them. Install hooks exactly these.
const (
	HookSessionStart       = hookdialect.HookSessionStart
	HookUserPromptSubmit   = hookdialect.HookUserPromptSubmit
	HookPreToolUse         = hookdialect.HookPreToolUse
	HookPermissionRequest  = hookdialect.HookPermissionRequest
	HookPostToolUse        = hookdialect.HookPostToolUse
	HookPostToolUseFailure = hookdialect.HookPostToolUseFailure
	HookNotification       = hookdialect.HookNotification
	HookSubagentStart      = hookdialect.HookSubagentStart
	HookSubagentStop       = hookdialect.HookSubagentStop
	HookPreCompact         = hookdialect.HookPreCompact
	HookPostCompact        = hookdialect.HookPostCompact
	HookStop               = hookdialect.HookStop
	HookStopFailure        = hookdialect.HookStopFailure
	HookSessionEnd         = hookdialect.HookSessionEnd
	HookPermissionDenied   = hookdialect.HookPermissionDenied
)

// Tools whose permission request is really a question or a plan approval.
const (
	ToolAskUserQuestion = hookdialect.ToolAskUserQuestion
	ToolExitPlanMode    = hookdialect.ToolExitPlanMode
)

// maxText bounds a prompt's or message's text in an event.
const maxText = hookdialect.MaxText

// HookTimeout is the timeout (seconds) install gives each handler. ag-hook
// takes milliseconds; the timeout only bounds a wedged disk.
const HookTimeout = 10

// dialect is Claude Code's: the names are Claude's own. A matcher only
// where it saves work: Notification runs ag-hook only for the types that
// mean a wait. Tool events carry "*" (every tool), the form Claude's docs
// show. idle_prompt (~60 s after a turn ended, also during a wait for
// background agents) is deliberately not a wait.
var dialect = hookdialect.Dialect{
	Agent: ID,
	// The native binary's comm: "claude" through the npm bin link,
	// "claude.exe" when 2.1.332's daemon runs it by its own path.
	Processes: []string{"claude", "claude.exe"},
	Notifications: map[string]string{
		"permission_prompt":  hookdialect.NoticePermission,
		"elicitation_dialog": hookdialect.NoticeQuestion,
		"agent_needs_input":  hookdialect.NoticeQuestion,
	},
	// Every hook of a turn says the mode (2.1.332: "default" is manual,
	// also with --permission-mode manual).
	Modes: map[string]string{
		"default": event.ModeManual, "manual": event.ModeManual, "auto": event.ModeAuto,
		"plan": event.ModePlan, "acceptEdits": event.ModeAcceptEdits,
		"bypassPermissions": event.ModeBypass, "dontAsk": event.ModeDontAsk,
	},
	// Auto mode's hold when its safety check gives no verdict: a wait
	// about the action it holds (doc/agents/claude.md).
	Unchecked: []string{"Auto mode can't check actions"},
	// Background sessions (claude --bg, agent view): only their hooks run
	// with CLAUDE_JOB_DIR ($CLAUDE_CONFIG_DIR/jobs/<job>).
	Background:          hookdialect.Background{JobDirEnv: EnvJobDir, PIDEnv: EnvPID},
	QuestionTools:       []string{ToolAskUserQuestion},
	PlanTools:           []string{ToolExitPlanMode},
	ShellTools:          []string{hookdialect.ToolBash},
	PreToolBeforeDialog: true,
	Install: hookdialect.Install{
		Dir:          ".claude",
		ConfigDirEnv: "CLAUDE_CONFIG_DIR",
		File:         "settings.json",
		Timeout:      HookTimeout,
		TimeoutUnit:  hookdialect.Seconds,
		StatusLine:   []string{"statusLine"},
		Entries: []hookdialect.Entry{
			{Event: HookSessionStart},
			{Event: HookUserPromptSubmit},
			{Event: HookPreToolUse, Matcher: "*"},
			{Event: HookPermissionRequest, Matcher: "*"},
			{Event: HookPermissionDenied, Matcher: "*"},
			{Event: HookPostToolUse, Matcher: "*"},
			{Event: HookPostToolUseFailure, Matcher: "*"},
			{Event: HookNotification, Matcher: "permission_prompt|elicitation_dialog|agent_needs_input"},
			{Event: HookSubagentStart},
			{Event: HookSubagentStop},
			{Event: HookPreCompact},
			{Event: HookPostCompact},
			{Event: HookStop},
			{Event: HookStopFailure},
			{Event: HookSessionEnd},
		},
	},
	Model: func(name string) (string, int64) { return APIModel(name), ContextWindow(name, 0) },
}

// Dialect is Claude Code's hook dialect.
func Dialect() *hookdialect.Dialect { return &dialect }

// Mapper maps Claude Code's hook payloads (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// ProcessNames are Claude Code's comm names.
func (Mapper) ProcessNames() []string { return dialect.Processes }

// MapHook maps one Claude hook payload to events (see hookdialect).
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return dialect.MapHook(raw, hc)
}
