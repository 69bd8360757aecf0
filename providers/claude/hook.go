package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

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
func (*Provider) ProcessNames() []string { return []string{"claude"} }

// hookStr decodes any JSON value leniently: a string as itself, null as "",
// anything else as its compact JSON text. A field of a surprising type
// then never costs the whole event.
type hookStr string

func (s *hookStr) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = hookStr(v)
		return nil
	}
	if string(b) == "null" {
		*s = ""
		return nil
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return err
	}
	*s = hookStr(strings.ToValidUTF8(c.String(), "\uFFFD"))
	return nil
}

// hookPayload holds the fields of every Claude hook payload that ag reads
// (Claude Code 2.1.x; field names per code.claude.com/docs/en/hooks).
type hookPayload struct {
	SessionID        hookStr `json:"session_id"`
	TranscriptPath   hookStr `json:"transcript_path"`
	Cwd              hookStr `json:"cwd"`
	HookEventName    hookStr `json:"hook_event_name"`
	PromptID         hookStr `json:"prompt_id"`
	AgentID          hookStr `json:"agent_id"`
	AgentType        hookStr `json:"agent_type"`
	Source           hookStr `json:"source"`
	Model            hookStr `json:"model"`
	Prompt           hookStr `json:"prompt"`
	ToolName         hookStr `json:"tool_name"`
	ToolUseID        hookStr `json:"tool_use_id"`
	Error            hookStr `json:"error"`
	ErrorDetails     hookStr `json:"error_details"`
	Message          hookStr `json:"message"`
	NotificationType hookStr `json:"notification_type"`
	Reason           hookStr `json:"reason"`
	Trigger          hookStr `json:"trigger"`
	LastMessage      hookStr `json:"last_assistant_message"`

	IsInterrupt     json.RawMessage   `json:"is_interrupt"`
	ToolInput       json.RawMessage   `json:"tool_input"`
	BackgroundTasks []json.RawMessage `json:"background_tasks"`
}

// hookBgTask is one entry of Stop's background_tasks.
type hookBgTask struct {
	Type   hookStr `json:"type"`
	Status hookStr `json:"status"`
}

// MapHook maps one Claude hook payload to events (see the README's
// "Claude hooks" table). Hooks ag does not map give no events and no error.
func (p *Provider) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var pl hookPayload
	if err := json.Unmarshal(raw, &pl); err != nil {
		return nil, fmt.Errorf("hook payload: %w", err)
	}
	hook := string(pl.HookEventName)
	if hook == "" {
		return nil, errors.New(`hook payload: no "hook_event_name"`)
	}
	if pl.SessionID == "" {
		return nil, fmt.Errorf(`hook payload: %s without "session_id"`, hook)
	}
	m := hookMapper{pl: &pl, hc: hc, hook: hook, digest: event.MakeID(string(bytes.TrimSpace(raw)))}
	switch hook {
	case HookSessionStart:
		e := m.ev(event.SessionStart)
		e.Text = string(pl.Source)
		// Only here does Claude say "[1m]": declare the window, so the
		// transcript's plain model name does not shrink it (see ag-fold),
		// and name the model as transcripts and the status line do.
		if m := string(pl.Model); m != "" {
			e.Model = APIModel(m)
			e.Context = &event.Context{Size: ContextWindow(m, 0)}
		}
	case HookUserPromptSubmit:
		e := m.ev(event.TurnStart)
		e.Text = hookClamp(string(pl.Prompt), maxText)
	case HookPreToolUse:
		e := m.ev(event.ToolStart)
		e.Tool, e.ToolID = string(pl.ToolName), string(pl.ToolUseID)
		e.Text = hookSummary(e.Tool, pl.ToolInput)
	case HookPermissionRequest:
		e := m.ev(event.Wait)
		e.Tool, e.ToolID = string(pl.ToolName), string(pl.ToolUseID)
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
		e.Tool, e.ToolID = string(pl.ToolName), string(pl.ToolUseID)
		if hook == HookPostToolUseFailure {
			e.Reason = hookClamp(hookFirstLine(string(pl.Error)), maxSummary)
			if e.Reason == "" {
				e.Reason = "error"
			}
			// Escape during a tool ends the turn and no Stop follows.
			if hookIsTrue(pl.IsInterrupt) {
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
		e.Tool = string(pl.AgentType)
		if e.Tool == "" {
			e.Tool = "agent"
		}
	case HookPreCompact:
		e := m.ev(event.ToolStart)
		e.Tool, e.Text = "compact", string(pl.Trigger)
	case HookPostCompact:
		e := m.ev(event.ToolEnd)
		e.Tool, e.Text = "compact", string(pl.Trigger)
	case HookStop:
		e := m.ev(event.TurnEnd)
		e.Pending = hookInFlight(pl.BackgroundTasks)
		e.Text = hookClamp(string(pl.LastMessage), maxText)
	case HookStopFailure:
		e := m.ev(event.TurnFail)
		e.Reason = string(pl.Error)
		if e.Reason == "" {
			e.Reason = "unknown"
		}
		e.Text = hookClamp(string(pl.ErrorDetails), maxText)
	case HookSessionEnd:
		m.ev(event.SessionEnd).Reason = string(pl.Reason)
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
	pl, hc := m.pl, m.hc
	e := event.New(kind, hc.Now, ID, string(pl.SessionID))
	e.Src = event.SrcHook
	e.ID = event.MakeID(event.SrcHook, e.Session, m.hook, kind, m.digest, strconv.FormatInt(hc.Now.Unix(), 10))
	e.Run = string(pl.PromptID)
	e.PID, e.TTY, e.Pane, e.Host = hc.PID, hc.TTY, hc.Pane, hc.Host
	e.Cwd = string(pl.Cwd)
	if e.Cwd == "" {
		e.Cwd = hc.Cwd
	}
	e.Transcript = string(pl.TranscriptPath)
	e.Sub = string(pl.AgentID)
	m.out = append(m.out, e)
	return &m.out[len(m.out)-1]
}

// notification maps the notifications that mean Claude waits for the
// user. idle_prompt (~60 s after a turn ended, also during a wait for
// background agents) is deliberately not a wait; nor is anything else.
func (m *hookMapper) notification() {
	pl := m.pl
	msg := hookClamp(string(pl.Message), maxText)
	switch string(pl.NotificationType) {
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
func hookInFlight(tasks []json.RawMessage) int {
	n := 0
	for _, raw := range tasks {
		var t hookBgTask
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		switch strings.ToLower(string(t.Type)) {
		case "subagent", "workflow":
		default:
			continue
		}
		switch strings.ToLower(string(t.Status)) {
		case "completed", "failed", "cancelled", "canceled", "killed", "stopped", "done":
			continue
		}
		n++
	}
	return n
}

func hookIsTrue(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "true" }

// summary is the short text that says what a tool call will do: the
// command, the file, the question, the plan's first lines.
func hookSummary(tool string, input json.RawMessage) string {
	if len(input) == 0 {
		return ""
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(input, &in) != nil {
		return hookClamp(hookCompact(input), maxSummary)
	}
	field := func(k string) string {
		var s hookStr
		if raw, ok := in[k]; ok && json.Unmarshal(raw, &s) == nil {
			return string(s)
		}
		return ""
	}
	switch tool {
	case ToolExitPlanMode:
		return hookPlanHead(field("plan"))
	case ToolAskUserQuestion:
		return hookQuestions(in["questions"])
	case "Bash":
		return hookClamp(field("command"), maxText)
	}
	for _, k := range []string{"command", "file_path", "notebook_path", "pattern", "url", "query", "path", "description", "prompt", "skill"} {
		if s := field(k); s != "" {
			return hookClamp(hookFirstLine(s), maxSummary)
		}
	}
	return hookClamp(hookCompact(input), maxSummary)
}

// questions joins AskUserQuestion's questions, one a line.
func hookQuestions(raw json.RawMessage) string {
	var qs []struct {
		Question hookStr `json:"question"`
	}
	if json.Unmarshal(raw, &qs) != nil {
		return ""
	}
	var lines []string
	for _, q := range qs {
		if q.Question != "" {
			lines = append(lines, string(q.Question))
		}
	}
	return hookClamp(strings.Join(lines, "\n"), maxText)
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
	return hookClamp(strings.TrimRight(strings.Join(lines, "\n"), "\n"), maxText)
}

func hookCompact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return ""
	}
	// Compact keeps bytes as they are; events are valid UTF-8.
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

func hookFirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// clamp cuts s to at most n bytes on a rune boundary, marking the cut.
func hookClamp(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && !hookRuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func hookRuneStart(b byte) bool { return b&0xC0 != 0x80 }
