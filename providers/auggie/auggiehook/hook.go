// Package auggiehook maps Auggie's (the Augment CLI's) hook payloads to
// events: what ag-hook runs, apart from the rest of the Auggie provider
// (the session reader, pane rules), so the hook binary links none of that.
// providers/auggie delegates here.
//
// Auggie's hooks are Claude's shape with other names, so Auggie is a
// dialect of it (providers/hookdialect): data, below. Verified on Auggie
// 0.36.0 against the fake backend (t/fakeapi/augment):
//
//   - Auggie runs hooks only when its backend's feature flags say
//     enable_hooks; a user's account decides, not settings.json.
//   - Payloads carry conversation_id (the session) and workspace_roots (the
//     first is the folder), no transcript_path and no tool_use_id.
//   - PromptSubmit is Claude's UserPromptSubmit (user_prompt the prompt).
//   - PreToolUse fires before the approval dialog, and for every call:
//     Auggie runs commands without asking unless its permissions say
//     ask-user. No hook reports the dialog (Notification is in its list,
//     never fired, and /hooks does not show it); the pane does.
//   - A denied call is a PostToolUse whose tool_error is "Tool execution
//     denied by user: <tool>", and the turn goes on: the refusal is sent
//     to the model, which answers, then Stop.
//   - Stop's agent_stop_cause: end_turn, interrupted (Escape at work),
//     max_iterations, empty_completion, error; the exchange it carries
//     (_exchange) holds the answer.
//   - A failed request (an API error) fires no Stop at all.
//   - Each hook runs with Auggie's own process as its parent (no shell),
//     a command with no shell metacharacters split into words by Auggie,
//     single quotes honoured. Timeouts are in milliseconds.
//   - A matcher is read on PreToolUse and PostToolUse only; on any other
//     event Auggie warns of it.
//
// An empty answer with exit 0 decides nothing (Auggie's own parser: no
// JSON, no decision); only exit 2 on PreToolUse blocks. ag-hook prints
// nothing and exits 0.
package auggiehook

import (
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/hookdialect"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Auggie's agent id in events.
const ID = "auggie"

// Auggie's hook events, as settings.json names them.
const (
	HookSessionStart = "SessionStart"
	HookPromptSubmit = "PromptSubmit"
	HookPreToolUse   = "PreToolUse"
	HookPostToolUse  = "PostToolUse"
	HookStop         = "Stop"
	HookSessionEnd   = "SessionEnd"
)

// HookTimeout is each handler's timeout, in seconds (written in
// milliseconds, Auggie's unit; its default is a minute).
const HookTimeout = 10

// DenyPrefix starts the error of a call the user refused.
const DenyPrefix = "Tool execution denied by user"

// ReasonRefused is a refused call's tool.end reason: the turn goes on.
const ReasonRefused = hookdialect.ReasonRefused

var dialect = hookdialect.Dialect{
	Agent: ID,
	// `node …/auggie`: comm "node", which no rule can own. The hook's
	// parent is Auggie itself, with its terminal: ag-hook's walk takes
	// it. "auggie" names a process that set its title.
	Processes: []string{"auggie"},
	Events:    map[string]string{HookPromptSubmit: hookdialect.HookUserPromptSubmit},
	Fields: map[string]string{
		"conversation_id":                  "session_id",
		"workspace_roots":                  "cwd",
		"user_prompt":                      "prompt",
		"tool_error":                       "error",
		"agent_stop_cause":                 "stop_cause",
		"_exchange.exchange.response_text": "last_assistant_message",
	},
	// No notification ever fires: none is a wait.
	Notifications:       map[string]string{},
	ShellTools:          []string{"launch-process"},
	PreToolBeforeDialog: true,
	Refusal:             DenyPrefix,
	StopCauses: map[string]string{
		"end_turn":         hookdialect.StopEnd,
		"interrupted":      hookdialect.StopInterrupt,
		"error":            hookdialect.StopFail,
		"max_iterations":   "", // an end, reason kept
		"empty_completion": "",
	},
	Install: hookdialect.Install{
		Dir:         ".augment",
		File:        "settings.json",
		Timeout:     HookTimeout,
		TimeoutUnit: hookdialect.Milliseconds,
		Entries: []hookdialect.Entry{
			{Event: HookSessionStart},
			{Event: HookPromptSubmit},
			{Event: HookPreToolUse, Matcher: ".*"},
			{Event: HookPostToolUse, Matcher: ".*"},
			{Event: HookStop},
			{Event: HookSessionEnd},
		},
	},
}

// Dialect is Auggie's hook dialect.
func Dialect() *hookdialect.Dialect { return &dialect }

// Mapper maps Auggie's hook payloads (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// ProcessNames are Auggie's comm names.
func (Mapper) ProcessNames() []string { return dialect.Processes }

// MapHook maps one Auggie hook payload to events (see hookdialect).
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	return dialect.MapHook(raw, hc)
}
