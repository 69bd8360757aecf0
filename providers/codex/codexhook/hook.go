// Package codexhook maps Codex's hook payloads to events: what ag-hook
// runs, apart from the rest of the Codex provider (config editing in TOML
// and JSON, rollouts, pane rules), so the hook binary links none of that.
// providers/codex delegates here.
package codexhook

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/provider"
)

// HookPayload is what Codex writes on a hook's stdin (snake_case, one JSON
// object). Turn-scoped events carry turn_id, which is ag's run; sub-agent
// events add agent_id/agent_type. Strings are read leniently
// (jsonscan.Text): a field of a surprising type never costs the event.
type HookPayload struct {
	SessionID, TurnID, TranscriptPath, Cwd, HookEventName string
	Model, PermissionMode, Source, Prompt                 string
	ToolName, ToolUseID, Reason, Error                    string
	AgentID, AgentType, Trigger, LastMessage              string
	ToolInput                                             []byte // raw JSON
}

// ParseHook reads a payload by hand: a hook process lives a millisecond,
// and encoding/json's first decode of a type costs a fifth of that.
func ParseHook(raw []byte) (HookPayload, error) {
	var p HookPayload
	err := jsonscan.Members(raw, func(k string, v []byte) error {
		if k == "tool_input" {
			p.ToolInput = v
		} else if f := p.str(k); f != nil {
			*f = jsonscan.Text(v)
		}
		return nil
	})
	return p, err
}

// str is the string field named k, or nil.
func (p *HookPayload) str(k string) *string {
	switch k {
	case "session_id":
		return &p.SessionID
	case "turn_id":
		return &p.TurnID
	case "transcript_path":
		return &p.TranscriptPath
	case "cwd":
		return &p.Cwd
	case "hook_event_name":
		return &p.HookEventName
	case "model":
		return &p.Model
	case "permission_mode":
		return &p.PermissionMode
	case "source":
		return &p.Source
	case "prompt":
		return &p.Prompt
	case "tool_name":
		return &p.ToolName
	case "tool_use_id":
		return &p.ToolUseID
	case "reason":
		return &p.Reason
	case "error":
		return &p.Error
	case "agent_id":
		return &p.AgentID
	case "agent_type":
		return &p.AgentType
	case "trigger":
		return &p.Trigger
	case "last_assistant_message":
		return &p.LastMessage
	}
	return nil
}

// Hooks are the Codex hook events ag installs, in the order hooks.json
// lists them: the eleven Codex 0.171 offers in /hooks. PermissionRequest
// needs Codex >= 0.122; older Codex ignores the entry. Codex has no
// Notification event, and 0.171 no StopFailure (MapHook still maps one,
// for a Codex that sends it; installing it would leave a handler /hooks
// never lists, so never trusted).
var Hooks = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
	"PostToolUse", "Stop", "SubagentStart", "SubagentStop",
	"PreCompact", "PostCompact", "SessionEnd",
}

// questionTool says whether a tool's permission request is really a
// question for the user (Codex's request_user_input, and the names other
// harnesses use for the same picker).
func questionTool(name string) bool {
	switch name {
	case "AskUserQuestion", "request_user_input", "question":
		return true
	}
	return false
}

// textMax clamps free text (prompts, commands) carried in events.
const textMax = 2000

// ID is Codex's agent id in events.
const ID = "codex"

// Mapper maps Codex's hook payloads (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// ProcessNames: the native codex binary is the agent; its node launcher
// (comm "node") is not, and ag-hook walks past it.
func (Mapper) ProcessNames() []string { return []string{"codex"} }

// MapHook maps one Codex hook payload to the event it means (see
// doc/agents/codex.md); hooks ag does not map give none. ag-hook
// must exit 0 with empty stdout on every path, errors included: Codex reads
// exit 2 plus stderr as a Deny.
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	p, err := ParseHook(raw)
	if err != nil {
		return nil, fmt.Errorf("hook payload: %w", err)
	}
	if p.HookEventName == "" {
		return nil, errors.New(`hook payload: no "hook_event_name"`)
	}
	if p.SessionID == "" {
		return nil, fmt.Errorf(`hook payload: %s without "session_id"`, p.HookEventName)
	}
	e, ok := hookEvent(&p, hc.Now)
	if !ok {
		return nil, nil
	}
	// The id covers the payload and the second it arrived: one hook
	// delivered twice folds once, the same request asked again later
	// (sandbox-fail-then-escalate repeats the command) does not.
	e.ID = event.MakeID(event.SrcHook, e.Session, p.HookEventName, e.Kind,
		event.MakeIDBytes(bytes.TrimSpace(raw)), strconv.FormatInt(hc.Now.Unix(), 10))
	hc.Place(&e, e.Cwd)
	if hc.TTY == "" {
		// Since 0.17x Codex runs hooks inside its shared background server
		// (`codex app-server`, one per CODEX_HOME, no tty), started by
		// whichever TUI came first: its pid is no session's and its
		// $TMUX_PANE is that first TUI's pane, whatever pane this session
		// is in. Only an agent process with a terminal (--no-daemon, older
		// Codex) says where the session is.
		e.PID, e.Pane = 0, ""
	}
	return []event.Event{e}, nil
}

// hookEvent maps the payload's own fields; ok is false for hooks that
// report nothing ag folds.
func hookEvent(p *HookPayload, now time.Time) (e event.Event, ok bool) {
	var kind string
	switch p.HookEventName {
	case "SessionStart":
		kind = event.SessionStart
	case "UserPromptSubmit":
		kind = event.TurnStart
	case "PreToolUse", "SubagentStart", "PreCompact":
		kind = event.ToolStart
	case "PostToolUse", "SubagentStop", "PostCompact":
		kind = event.ToolEnd
	case "PermissionRequest":
		kind = event.Wait
	case "Stop":
		kind = event.TurnEnd
	case "StopFailure":
		kind = event.TurnFail
	case "SessionEnd":
		kind = event.SessionEnd
	default:
		return e, false
	}
	e = event.New(kind, now, ID, p.SessionID)
	e.Src = event.SrcHook
	e.Run = p.TurnID
	e.Cwd = p.Cwd
	e.Transcript = p.TranscriptPath
	e.Sub = p.AgentID
	switch p.HookEventName {
	case "SessionStart":
		e.Model = p.Model
		e.Text = p.Source
	case "UserPromptSubmit":
		e.Text = Clamp(p.Prompt)
	case "PreToolUse", "PostToolUse":
		e.Tool, e.ToolID = p.ToolName, p.ToolUseID
		if p.HookEventName == "PreToolUse" {
			e.Text = ToolSummary(p.ToolInput)
		}
	case "SubagentStart", "SubagentStop":
		e.Tool, e.ToolID = p.AgentType, p.AgentID
		if e.Tool == "" {
			e.Tool = "agent"
		}
	case "PreCompact", "PostCompact":
		e.Tool, e.Text = event.ToolCompact, p.Trigger
	case "PermissionRequest":
		e.Tool = p.ToolName
		e.Attention = event.AttnPermission
		e.Text = ToolSummary(p.ToolInput)
		if questionTool(p.ToolName) {
			e.Attention = event.AttnQuestion
			if q := questionText(p.ToolInput); q != "" {
				e.Text = q
			}
		}
	case "Stop":
		e.Text = Clamp(p.LastMessage)
	case "StopFailure":
		e.Reason = p.Error
		if e.Reason == "" {
			e.Reason = "unknown"
		}
	case "SessionEnd":
		e.Reason = p.Reason
	}
	return e, true
}

// ToolSummary is the short text shown for a tool call: the shell command,
// else a path, else the first string member of the input.
func ToolSummary(input []byte) string {
	in := map[string][]byte{}
	if jsonscan.Members(input, func(k string, v []byte) error { in[k] = v; return nil }) != nil {
		return Clamp(jsonString(input))
	}
	for _, k := range []string{"command", "cmd", "file_path", "path", "pattern", "url", "query"} {
		if s := stringish(in[k]); s != "" {
			return Clamp(s)
		}
	}
	return ""
}

// questionText finds the question of a request_user_input-style call:
// {"questions":[{"question":...}]} or {"question":...}.
func questionText(input []byte) string {
	var question, first string
	err := jsonscan.Members(input, func(k string, v []byte) error {
		switch k {
		case "question":
			question = jsonString(v)
		case "questions":
			first = ""
			return jsonscan.Elements(v, func(q []byte) error {
				return jsonscan.Members(q, func(k string, v []byte) error {
					if k == "question" && first == "" {
						first = jsonString(v)
					}
					return nil
				})
			})
		}
		return nil
	})
	switch {
	case err != nil:
		return ""
	case question != "":
		return Clamp(question)
	}
	return Clamp(first)
}

// jsonString is raw's value when it is a JSON string, else "".
func jsonString(raw []byte) string {
	s := jsonscan.Scanner{B: raw}
	s.Space()
	if s.Peek() != '"' {
		return ""
	}
	v, err := s.Str()
	if err != nil {
		return ""
	}
	return v
}

// stringish reads a JSON string, or an argv array of strings joined with
// spaces.
func stringish(raw []byte) string {
	if s := jsonString(raw); s != "" {
		return s
	}
	var argv []string
	err := jsonscan.Elements(raw, func(v []byte) error {
		s := jsonscan.Scanner{B: v}
		if s.Peek() != '"' && !bytes.Equal(v, []byte("null")) {
			return s.Errorf("want a string")
		}
		argv = append(argv, jsonString(v))
		return nil
	})
	if err != nil {
		return ""
	}
	return strings.Join(argv, " ")
}

// Clamp cuts s to textMax bytes on a rune boundary (rollouts clamp their
// texts the same way).
func Clamp(s string) string { return event.Clamp(s, textMax) }
