// Package qwenhook is Qwen Code's hook dialect: Claude's hook shape
// (hookdialect), as Qwen Code 0.24.4 sends it. ag-hook links it alone.
package qwenhook

import "github.com/agwatch/ag/providers/hookdialect"

// ID is Qwen Code's agent id in events.
const ID = "qwen"

// MaxText bounds a prompt or an answer in an event.
const MaxText = hookdialect.MaxText

// Qwen Code's tools ag names.
const (
	ToolShell    = "run_shell_command"
	ToolQuestion = "ask_user_question"
	ToolExitPlan = "exit_plan_mode"
)

// HookTimeout is the timeout install gives each handler, in seconds,
// written in milliseconds: 0.24.4 reads a command hook's timeout in
// seconds but a value of 1000 or more as (legacy) milliseconds, and older
// releases (0.15) read milliseconds, so 10000 is 10 s to both.
const HookTimeout = 10

// dialect is Qwen Code's, verified on 0.24.4 in tmux against the fake
// model (make e2e). The event names are Claude's. A permission prompt
// fires PermissionRequest and Notification permission_prompt at once,
// for a question (ask_user_question) and a plan (exit_plan_mode) too;
// PreToolUse fires only once the tool really runs. A denied call, and
// the user's Escape while it works, fire Notification idle_prompt and
// nothing else (no Stop); idle_prompt follows every Stop too. Stop
// carries context_limit, the model's window.
var dialect = hookdialect.Dialect{
	Agent: ID,
	// Qwen is a node program: `node …/.bin/qwen` starts `node cli.js`,
	// which starts a second `node cli.js` that runs the session and its
	// hooks (through /bin/sh): the nearest node ancestor.
	Processes: []string{"node", "qwen"},
	Notifications: map[string]string{
		"permission_prompt": hookdialect.NoticePermission,
		"idle_prompt":       hookdialect.NoticeIdle,
	},
	NoticeNamesTool: true, // "Qwen Code needs your permission to use ask_user_question"
	QuestionTools:   []string{ToolQuestion},
	PlanTools:       []string{ToolExitPlan},
	ShellTools:      []string{ToolShell},
	Install: hookdialect.Install{
		Dir:         ".qwen",
		File:        "settings.json",
		Timeout:     HookTimeout,
		TimeoutUnit: hookdialect.Milliseconds,
		Comments:    true, // read through strip-json-comments, as Gemini CLI's
		// ui.statusLine: a command fed Claude's statusLine JSON (its
		// context_window.current_usage a number; no cost, no transcript).
		StatusLine:     []string{"ui", "statusLine"},
		StatusLineArgs: []string{"--agent", ID},
		Entries: []hookdialect.Entry{
			{Event: hookdialect.HookSessionStart},
			{Event: hookdialect.HookUserPromptSubmit},
			{Event: hookdialect.HookPreToolUse, Matcher: "*"},
			{Event: hookdialect.HookPermissionRequest, Matcher: "*"},
			{Event: hookdialect.HookPostToolUse, Matcher: "*"},
			{Event: hookdialect.HookPostToolUseFailure, Matcher: "*"},
			{Event: hookdialect.HookNotification, Matcher: "permission_prompt|idle_prompt"},
			{Event: hookdialect.HookSubagentStart},
			{Event: hookdialect.HookSubagentStop},
			{Event: hookdialect.HookPreCompact},
			{Event: hookdialect.HookPostCompact},
			{Event: hookdialect.HookStop},
			{Event: hookdialect.HookStopFailure},
			{Event: hookdialect.HookSessionEnd},
		},
	},
}

// Dialect is Qwen Code's hook dialect; it is ag-hook's hook mapper too.
func Dialect() *hookdialect.Dialect { return &dialect }
