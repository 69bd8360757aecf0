// Package droidhook is Factory Droid's hook dialect: Claude's hook shape
// (hookdialect), as droid 0.225.2 sends it. ag-hook links it alone.
package droidhook

import "github.com/agwatch/ag/providers/hookdialect"

// ID is Factory Droid's agent id in events.
const ID = "droid"

// MaxText bounds a prompt or an answer in an event.
const MaxText = hookdialect.MaxText

// Droid's tools ag names: its shell, its question, its plan (a spec).
const (
	ToolShell    = "Execute"
	ToolQuestion = "AskUser"
	ToolExitSpec = "ExitSpecMode"
)

// HookTimeout is the timeout install gives each handler, in seconds.
const HookTimeout = 10

// dialect is Factory Droid's, verified on 0.225.2 in tmux against the fake
// model (FACTORY_AIRGAP_ENABLED=1, a BYOK model). The names are Claude's.
// PreToolUse fires before the permission dialog, then Notification
// permission_prompt ("Factory CLI needs permission to execute 1
// tool(s)"); PermissionRequest never fires. Approve: PostToolUse, Stop.
// Deny: Stop alone. Escape while it works: Notification idle_prompt
// ("Agent stopped by user and is waiting for input"), no Stop. /quit:
// SessionEnd twice (reason "other", then one without), which fold as one.
// AskUser (a question) fires PreToolUse, then Notification
// elicitation_dialog; ExitSpecMode (a spec to approve, Droid's plan) fires
// PreToolUse, then the same permission_prompt as a command: its
// PreToolUse is the wait.
var dialect = hookdialect.Dialect{
	Agent: ID,
	// The native binary's comm. Hooks run (through sh -c) under its child
	// `droid exec --input-format stream-jsonrpc …`, the nearest droid.
	Processes: []string{"droid"},
	Notifications: map[string]string{
		"permission_prompt":  hookdialect.NoticePermission,
		"elicitation_dialog": hookdialect.NoticeQuestion,
		"idle_prompt":        hookdialect.NoticeIdle,
	},
	ShellTools:          []string{ToolShell},
	QuestionTools:       []string{ToolQuestion},
	PlanTools:           []string{ToolExitSpec},
	PreToolBeforeDialog: true,
	AsksAtPreTool:       true,
	Install: hookdialect.Install{
		Dir:         ".factory",
		File:        "settings.json",
		Timeout:     HookTimeout,
		TimeoutUnit: hookdialect.Seconds,
		Entries: []hookdialect.Entry{
			{Event: hookdialect.HookSessionStart},
			{Event: hookdialect.HookUserPromptSubmit},
			{Event: hookdialect.HookPreToolUse, Matcher: "*"},
			{Event: hookdialect.HookPostToolUse, Matcher: "*"},
			{Event: hookdialect.HookNotification},
			{Event: hookdialect.HookSubagentStop},
			{Event: hookdialect.HookPreCompact},
			{Event: hookdialect.HookStop},
			{Event: hookdialect.HookSessionEnd},
		},
	},
}

// Dialect is Factory Droid's hook dialect; it is ag-hook's hook mapper too.
func Dialect() *hookdialect.Dialect { return &dialect }
