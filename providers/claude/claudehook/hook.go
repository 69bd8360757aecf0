// Package claudehook maps Claude Code's hook and statusLine payloads to
// events: what ag-hook runs, apart from the rest of the Claude provider
// (config editing, transcripts, pane rules), so the hook binary links
// none of that. providers/claude delegates here.
package claudehook

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Claude Code's agent id in events.
const ID = "claude"

// Mapper maps Claude Code's hook payloads (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// Hook event names (hook_event_name) that ag maps, in the order a turn
// meets them. Install hooks exactly these.
const (
	HookSessionStart       = "SessionStart"
	HookUserPromptSubmit   = "UserPromptSubmit"
	HookPreToolUse         = "PreToolUse"
	HookPermissionRequest  = "PermissionRequest"
	HookPostToolUse        = "PostToolUse"
	HookPostToolUseFailure = "PostToolUseFailure"
	HookNotification       = "Notification"
	HookSubagentStart      = "SubagentStart"
	HookSubagentStop       = "SubagentStop"
	HookPreCompact         = "PreCompact"
	HookPostCompact        = "PostCompact"
	HookStop               = "Stop"
	HookStopFailure        = "StopFailure"
	HookSessionEnd         = "SessionEnd"
)

// Tools whose permission request is really a question or a plan approval.
const (
	ToolAskUserQuestion = "AskUserQuestion"
	ToolExitPlanMode    = "ExitPlanMode"
)

// Text limits: enough for a notification or a prompt segment, and a
// bounded spool line whatever the agent sends.
const (
	maxText      = 2000 // prompts, messages, errors
	maxSummary   = 300  // a tool's one-line summary
	maxPlanLines = 12
)

// ProcessNames: Claude Code's native binary runs with comm "claude".
func (Mapper) ProcessNames() []string { return []string{"claude"} }

// hookPayload holds the fields of every Claude hook payload that ag reads
// (Claude Code 2.1.x; field names per code.claude.com/docs/en/hooks).
// Strings are read leniently (jsonscan.Text): a field of a surprising type
// never costs the whole event.
type hookPayload struct {
	SessionID, TranscriptPath, Cwd, HookEventName, PromptID string
	AgentID, AgentType, Source, Model, Prompt               string
	ToolName, ToolUseID, Error, ErrorDetails, Message       string
	NotificationType, Reason, Trigger, LastMessage          string

	IsInterrupt     bool
	ToolInput       []byte // raw JSON
	BackgroundTasks []byte // raw JSON array
}

// str is the string field named k, or nil.
func (pl *hookPayload) str(k string) *string {
	switch k {
	case "session_id":
		return &pl.SessionID
	case "transcript_path":
		return &pl.TranscriptPath
	case "cwd":
		return &pl.Cwd
	case "hook_event_name":
		return &pl.HookEventName
	case "prompt_id":
		return &pl.PromptID
	case "agent_id":
		return &pl.AgentID
	case "agent_type":
		return &pl.AgentType
	case "source":
		return &pl.Source
	case "model":
		return &pl.Model
	case "prompt":
		return &pl.Prompt
	case "tool_name":
		return &pl.ToolName
	case "tool_use_id":
		return &pl.ToolUseID
	case "error":
		return &pl.Error
	case "error_details":
		return &pl.ErrorDetails
	case "message":
		return &pl.Message
	case "notification_type":
		return &pl.NotificationType
	case "reason":
		return &pl.Reason
	case "trigger":
		return &pl.Trigger
	case "last_assistant_message":
		return &pl.LastMessage
	}
	return nil
}

// parseHook reads a payload by hand: a hook process lives a millisecond,
// and encoding/json's first decode of a type costs a fifth of that.
func parseHook(raw []byte, pl *hookPayload) error {
	return jsonscan.Members(raw, func(k string, v []byte) error {
		switch k {
		case "is_interrupt":
			pl.IsInterrupt = jsonscan.IsTrue(v)
		case "tool_input":
			pl.ToolInput = v
		case "background_tasks":
			pl.BackgroundTasks = v
		default:
			if p := pl.str(k); p != nil {
				*p = jsonscan.Text(v)
			}
		}
		return nil
	})
}

// MapHook maps one Claude hook payload to events (see the README's
// "Claude hooks" table). Hooks ag does not map give no events and no error.
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var pl hookPayload
	if err := parseHook(raw, &pl); err != nil {
		return nil, fmt.Errorf("hook payload: %w", err)
	}
	hook := pl.HookEventName
	if hook == "" {
		return nil, errors.New(`hook payload: no "hook_event_name"`)
	}
	if pl.SessionID == "" {
		return nil, fmt.Errorf(`hook payload: %s without "session_id"`, hook)
	}
	m := hookMapper{pl: &pl, hc: hc, hook: hook, digest: event.MakeIDBytes(bytes.TrimSpace(raw))}
	switch hook {
	case HookSessionStart:
		e := m.ev(event.SessionStart)
		e.Text = pl.Source
		// Only here does Claude say "[1m]": declare the window, so the
		// transcript's plain model name does not shrink it (see ag-fold),
		// and name the model as transcripts and the status line do.
		if m := pl.Model; m != "" {
			e.Model = APIModel(m)
			e.Context = &event.Context{Size: ContextWindow(m, 0)}
		}
	case HookUserPromptSubmit:
		e := m.ev(event.TurnStart)
		e.Text = event.Clamp(pl.Prompt, maxText)
	case HookPreToolUse:
		e := m.ev(event.ToolStart)
		e.Tool, e.ToolID = pl.ToolName, pl.ToolUseID
		e.Text = hookSummary(e.Tool, pl.ToolInput)
	case HookPermissionRequest:
		e := m.ev(event.Wait)
		e.Tool, e.ToolID = pl.ToolName, pl.ToolUseID
		switch e.Tool {
		case ToolAskUserQuestion:
			e.Attention = event.AttnQuestion
		case ToolExitPlanMode:
			e.Attention = event.AttnPlan
		default:
			e.Attention = event.AttnPermission
		}
		e.Text = hookSummary(e.Tool, pl.ToolInput)
	case HookPostToolUse, HookPostToolUseFailure:
		e := m.ev(event.ToolEnd)
		e.Tool, e.ToolID = pl.ToolName, pl.ToolUseID
		if hook == HookPostToolUseFailure {
			e.Reason = event.Clamp(hookFirstLine(pl.Error), maxSummary)
			if e.Reason == "" {
				e.Reason = "error"
			}
			// Escape during a tool ends the turn and no Stop follows.
			if pl.IsInterrupt {
				m.ev(event.Interrupt).Reason = "user"
			}
		}
	case HookNotification:
		m.notification()
	case HookSubagentStart, HookSubagentStop:
		kind := event.ToolStart
		if hook == HookSubagentStop {
			kind = event.ToolEnd
		}
		e := m.ev(kind)
		e.Tool = pl.AgentType
		if e.Tool == "" {
			e.Tool = "agent"
		}
	case HookPreCompact:
		e := m.ev(event.ToolStart)
		e.Tool, e.Text = event.ToolCompact, pl.Trigger
	case HookPostCompact:
		e := m.ev(event.ToolEnd)
		e.Tool, e.Text = event.ToolCompact, pl.Trigger
	case HookStop:
		e := m.ev(event.TurnEnd)
		e.Pending = hookInFlight(pl.BackgroundTasks)
		e.Text = event.Clamp(pl.LastMessage, maxText)
	case HookStopFailure:
		e := m.ev(event.TurnFail)
		e.Reason = pl.Error
		if e.Reason == "" {
			e.Reason = "unknown"
		}
		// Claude 2.1.197 leaves error_details empty for an API error;
		// the message it showed ("API Error: 400 …") is the last one.
		e.Text = pl.ErrorDetails
		if e.Text == "" {
			e.Text = pl.LastMessage
		}
		e.Text = event.Clamp(e.Text, maxText)
	case HookSessionEnd:
		m.ev(event.SessionEnd).Reason = pl.Reason
	}
	return m.out, nil
}

type hookMapper struct {
	pl     *hookPayload
	hc     provider.HookContext
	hook   string
	digest string // of the whole payload
	out    []event.Event
}

// ev appends an event of kind carrying what every Claude hook event
// carries, and returns it for the kind's own fields. The id covers the
// payload and the second it arrived: the same hook delivered twice (two
// installs of ag-hook) folds once, the same hookPayload again later (a
// permission asked again after a "no") does not.
func (m *hookMapper) ev(kind string) *event.Event {
	pl, hc := m.pl, &m.hc
	// Filled in place, as event.New would: an Event is 552 bytes, and
	// New's copies on the stack pushed a hook past the 4 KB stack a Go
	// program has while it starts (the runtime then copies it to 8 KB).
	m.out = append(m.out, event.Event{})
	e := &m.out[len(m.out)-1]
	e.V, e.T, e.Kind, e.Agent, e.Session = event.Version, event.At(hc.Now), kind, ID, pl.SessionID
	e.Src = event.SrcHook
	e.ID = event.MakeID(event.SrcHook, e.Session, m.hook, kind, m.digest, strconv.FormatInt(hc.Now.Unix(), 10))
	e.Run = pl.PromptID
	hc.Place(e, pl.Cwd)
	e.Transcript = pl.TranscriptPath
	e.Sub = pl.AgentID
	return e
}

// notification maps the notifications that mean Claude waits for the
// user. idle_prompt (~60 s after a turn ended, also during a wait for
// background agents) is deliberately not a wait; nor is anything else.
func (m *hookMapper) notification() {
	pl := m.pl
	msg := event.Clamp(pl.Message, maxText)
	switch pl.NotificationType {
	case "permission_prompt":
		e := m.ev(event.Wait)
		e.Attention, e.Text = event.AttnPermission, msg
	case "elicitation_dialog", "agent_needs_input":
		e := m.ev(event.Wait)
		e.Attention, e.Text = event.AttnQuestion, msg
	case "":
		// Claude Code before notification_type (2.0.x) said only
		// "Claude needs your permission to use Write".
		const needs = "needs your permission"
		if i := strings.Index(msg, needs); i >= 0 {
			e := m.ev(event.Wait)
			e.Attention, e.Text = event.AttnPermission, msg
			if rest, ok := strings.CutPrefix(msg[i+len(needs):], " to use "); ok {
				e.Tool = strings.TrimSpace(rest)
			}
		}
	}
}

// inFlight counts the background subagents and workflows a Stop leaves
// running. Shells, monitors, teammates and MCP tasks never count: a dev
// server must not keep a session "working" forever.
func hookInFlight(tasks []byte) int {
	n := 0
	jsonscan.Elements(tasks, func(raw []byte) error {
		var typ, status string
		if jsonscan.Members(raw, func(k string, v []byte) error {
			switch k {
			case "type":
				typ = strings.ToLower(jsonscan.Text(v))
			case "status":
				status = strings.ToLower(jsonscan.Text(v))
			}
			return nil
		}) != nil {
			return nil
		}
		if typ != "subagent" && typ != "workflow" {
			return nil
		}
		switch status {
		case "completed", "failed", "cancelled", "canceled", "killed", "stopped", "done":
			return nil
		}
		n++
		return nil
	})
	return n
}

// summary is the short text that says what a tool call will do: the
// command, the file, the question, the plan's first lines.
func hookSummary(tool string, input []byte) string {
	if len(input) == 0 {
		return ""
	}
	in := map[string][]byte{}
	if jsonscan.Members(input, func(k string, v []byte) error { in[k] = v; return nil }) != nil {
		return event.Clamp(hookCompact(input), maxSummary)
	}
	field := func(k string) string {
		if raw, ok := in[k]; ok {
			return jsonscan.Text(raw)
		}
		return ""
	}
	switch tool {
	case ToolExitPlanMode:
		return hookPlanHead(field("plan"))
	case ToolAskUserQuestion:
		return hookQuestions(in["questions"])
	case "Bash":
		return event.Clamp(field("command"), maxText)
	}
	for _, k := range []string{"command", "file_path", "notebook_path", "pattern", "url", "query", "path", "description", "prompt", "skill"} {
		if s := field(k); s != "" {
			return event.Clamp(hookFirstLine(s), maxSummary)
		}
	}
	return event.Clamp(hookCompact(input), maxSummary)
}

// questions joins AskUserQuestion's questions, one a line.
func hookQuestions(raw []byte) string {
	var lines []string
	err := jsonscan.Elements(raw, func(q []byte) error {
		return jsonscan.Members(q, func(k string, v []byte) error {
			if k == "question" {
				if s := jsonscan.Text(v); s != "" {
					lines = append(lines, s)
				}
			}
			return nil
		})
	})
	if err != nil {
		return ""
	}
	return event.Clamp(strings.Join(lines, "\n"), maxText)
}

// planHead is the first non-blank lines of a plan.
func hookPlanHead(plan string) string {
	var lines []string
	for line := range strings.Lines(plan) {
		line = strings.TrimRight(line, " \t\r\n")
		if line == "" && len(lines) == 0 {
			continue
		}
		lines = append(lines, line)
		if len(lines) == maxPlanLines {
			break
		}
	}
	return event.Clamp(strings.TrimRight(strings.Join(lines, "\n"), "\n"), maxText)
}

// hookCompact is a value's compact JSON; events are valid UTF-8.
func hookCompact(raw []byte) string {
	return strings.ToValidUTF8(string(jsonscan.Compact(nil, raw)), "\uFFFD")
}

func hookFirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}
