package hookdialect

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

// Claude's hook event names (hook_event_name) that ag maps, in the order
// a turn meets them: the names a Dialect maps its agent's onto.
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
	// HookPermissionDenied: Claude Code 2.1.332's auto mode refused a
	// call (its safety check flagged it); the turn goes on.
	HookPermissionDenied = "PermissionDenied"
)

// Claude's tools whose permission request is really a question or a plan
// approval, and its shell.
const (
	ToolAskUserQuestion = "AskUserQuestion"
	ToolExitPlanMode    = "ExitPlanMode"
	ToolBash            = "Bash"
)

// Text limits: enough for a notification or a prompt segment, and a
// bounded spool line whatever the agent sends.
const (
	MaxText      = 2000 // prompts, messages, errors
	maxText      = MaxText
	maxSummary   = 300 // a tool's one-line summary
	maxPlanLines = 12
)

// hookPayload holds the fields of every Claude hook payload that ag reads
// (Claude Code 2.1.x; field names per code.claude.com/docs/en/hooks), by
// Claude's names: a dialect's own are renamed as read.
// Strings are read leniently (jsonscan.Text): a field of a surprising type
// never costs the whole event.
type hookPayload struct {
	SessionID, TranscriptPath, Cwd, HookEventName, PromptID string
	AgentID, AgentType, Source, Model, Prompt               string
	ToolName, ToolUseID, Error, ErrorDetails, Message       string
	NotificationType, Reason, Trigger, LastMessage          string
	StopCause, PermissionMode                               string

	IsInterrupt     bool
	ContextLimit    int64  // Qwen's Stop: the model's window
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
	case "stop_cause": // no Claude member: a dialect's cause of a Stop
		return &pl.StopCause
	case "permission_mode":
		return &pl.PermissionMode
	}
	return nil
}

// parseHook reads a payload by hand: a hook process lives a millisecond,
// and encoding/json's first decode of a type costs a fifth of that.
func (d *Dialect) parseHook(raw []byte, pl *hookPayload) error {
	return d.parseMembers(raw, "", pl)
}

// parseMembers reads the members of the object raw, at path (its members'
// names prefixed, for Fields naming a path into objects).
func (d *Dialect) parseMembers(raw []byte, path string, pl *hookPayload) error {
	return jsonscan.Members(raw, func(k string, v []byte) error {
		if path != "" {
			k = path + "." + k
		}
		if d.Fields != nil {
			if c, ok := d.Fields[k]; ok {
				k = c
			} else if len(v) > 0 && v[0] == '{' && d.fieldUnder(k) {
				d.parseMembers(v, k, pl)
				return nil
			}
		}
		if path != "" && !d.mapped(k) {
			return nil
		}
		switch k {
		case "is_interrupt":
			pl.IsInterrupt = jsonscan.IsTrue(v)
		case "tool_input":
			pl.ToolInput = v
		case "background_tasks":
			pl.BackgroundTasks = v
		case "context_limit":
			pl.ContextLimit, _ = strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
		default:
			if p := pl.str(k); p != nil {
				if len(v) > 0 && v[0] == '[' {
					jsonscan.Elements(v, func(el []byte) error {
						if *p == "" {
							*p = jsonscan.Text(el)
						}
						return nil
					})
				} else {
					*p = jsonscan.Text(v)
				}
			}
		}
		return nil
	})
}

// fieldUnder reports whether Fields names a path under the object at k.
func (d *Dialect) fieldUnder(k string) bool {
	for f := range d.Fields {
		if len(f) > len(k) && f[len(k)] == '.' && f[:len(k)] == k {
			return true
		}
	}
	return false
}

// mapped reports whether name is what Fields maps some member to: the
// only members read inside an object a path leads into.
func (d *Dialect) mapped(name string) bool {
	for _, c := range d.Fields {
		if c == name {
			return true
		}
	}
	return false
}

// MapHook maps one hook payload to events (see doc/hook-dialects.md).
// Hooks ag does not map give no events and no error.
func (d *Dialect) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var pl hookPayload
	if err := d.parseHook(raw, &pl); err != nil {
		return nil, fmt.Errorf("hook payload: %w", err)
	}
	hook := pl.HookEventName
	if hook == "" {
		return nil, errors.New(`hook payload: no "hook_event_name"`)
	}
	if pl.SessionID == "" {
		return nil, fmt.Errorf(`hook payload: %s without "session_id"`, hook)
	}
	if c, ok := d.Events[hook]; ok {
		hook = c
	}
	m := hookMapper{d: d, pl: &pl, hc: hc, hook: hook, digest: event.MakeIDBytes(bytes.TrimSpace(raw))}
	switch hook {
	case HookSessionStart:
		e := m.ev(event.SessionStart)
		e.Text = pl.Source
		// Only here does Claude say "[1m]": declare the window, so the
		// transcript's plain model name does not shrink it (see ag-fold),
		// and name the model as transcripts and the status line do.
		if m := pl.Model; m != "" {
			e.Model = m
			if d.Model != nil {
				var size int64
				if e.Model, size = d.Model(m); size > 0 {
					e.Context = &event.Context{Size: size}
				}
			}
		}
	case HookUserPromptSubmit:
		e := m.ev(event.TurnStart)
		e.Text = event.Clamp(pl.Prompt, maxText)
	case HookPreToolUse:
		e := m.ev(event.ToolStart)
		e.Tool, e.ToolID = pl.ToolName, pl.ToolUseID
		e.Text = d.hookSummary(e.Tool, pl.ToolInput)
		e.Options = d.hookOptions(e.Tool, pl.ToolInput)
		if d.AsksAtPreTool {
			if attn := d.attention(e.Tool); attn != event.AttnPermission {
				text, options := e.Text, e.Options
				w := m.ev(event.Wait) // e is stale from here
				w.Tool, w.ToolID, w.Attention, w.Text, w.Options = pl.ToolName, pl.ToolUseID, attn, text, options
			}
		}
	case HookPermissionRequest:
		e := m.ev(event.Wait)
		e.Tool, e.ToolID = pl.ToolName, pl.ToolUseID
		e.Attention = d.attention(e.Tool)
		e.Text = d.hookSummary(e.Tool, pl.ToolInput)
		e.Options = d.hookOptions(e.Tool, pl.ToolInput)
	case HookPermissionDenied:
		// The agent's safety check refused the call: it does not run,
		// and the turn goes on.
		e := m.ev(event.ToolEnd)
		e.Tool, e.ToolID = pl.ToolName, pl.ToolUseID
		e.Reason, e.Text = event.ReasonBlocked, event.Clamp(pl.Reason, maxSummary)
	case HookPostToolUse, HookPostToolUseFailure:
		e := m.ev(event.ToolEnd)
		e.Tool, e.ToolID = pl.ToolName, pl.ToolUseID
		if hook == HookPostToolUse && pl.Error != "" {
			// An agent with no PostToolUseFailure says so here (Auggie's
			// tool_error).
			e.Reason = event.Clamp(hookFirstLine(pl.Error), maxSummary)
			if d.Refusal != "" && strings.HasPrefix(pl.Error, d.Refusal) {
				e.Reason = ReasonRefused
			}
		}
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
		switch cause := pl.StopCause; d.StopCauses[cause] {
		case StopInterrupt:
			m.ev(event.Interrupt).Reason = cause
		case StopFail:
			e := m.ev(event.TurnFail)
			e.Reason, e.Text = cause, event.Clamp(pl.LastMessage, maxText)
		default:
			e := m.ev(event.TurnEnd)
			e.Pending = hookInFlight(pl.BackgroundTasks)
			e.Text = event.Clamp(pl.LastMessage, maxText)
			if cause != "" && d.StopCauses[cause] != StopEnd {
				e.Reason = cause
			}
		}
		if pl.ContextLimit > 0 {
			// The window the agent counts against: declared, as
			// Claude's SessionStart does, for the transcript's meters.
			m.ev(event.Meter).Context = &event.Context{Size: pl.ContextLimit}
		}
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

// attention is what a permission request for tool asks.
func (d *Dialect) attention(tool string) string {
	switch {
	case slices.Contains(d.QuestionTools, tool):
		return event.AttnQuestion
	case slices.Contains(d.PlanTools, tool):
		return event.AttnPlan
	}
	return event.AttnPermission
}

type hookMapper struct {
	d      *Dialect
	pl     *hookPayload
	hc     provider.HookContext
	hook   string
	digest string // of the whole payload
	out    []event.Event
}

// ev appends an event of kind carrying what every hook event
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
	e.V, e.T, e.Kind, e.Agent, e.Session = event.Version, event.At(hc.Now), kind, m.d.Agent, pl.SessionID
	e.Src = event.SrcHook
	e.ID = event.MakeID(event.SrcHook, e.Session, m.hook, kind, m.digest, strconv.FormatInt(hc.Now.Unix(), 10))
	e.Run = pl.PromptID
	hc.Place(e, pl.Cwd)
	e.Transcript = pl.TranscriptPath
	e.Sub = pl.AgentID
	e.Mode = m.d.mode(pl.PermissionMode)
	m.d.background(e, hc)
	return e
}

// notification maps the notifications the dialect says mean a wait, or
// that the agent is back at its prompt. Claude's idle_prompt (~60 s after a turn ended, also
// during a wait for background agents) is deliberately neither; nor is a
// type the dialect does not list.
func (m *hookMapper) notification() {
	pl := m.pl
	msg := event.Clamp(pl.Message, maxText)
	switch pl.NotificationType {
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
	default:
		switch m.d.Notifications[pl.NotificationType] {
		case NoticePermission:
			e := m.ev(event.Wait)
			e.Attention, e.Text = event.AttnPermission, msg
			if m.d.NoticeNamesTool {
				const needs = "needs your permission to use "
				if i := strings.Index(msg, needs); i >= 0 {
					e.Tool = strings.TrimSpace(msg[i+len(needs):])
					e.Attention = m.d.attention(e.Tool)
				}
			}
		case NoticeQuestion:
			e := m.ev(event.Wait)
			e.Attention, e.Text = event.AttnQuestion, msg
			if m.d.unchecked(msg) {
				e.Attention, e.Reason = event.AttnPermission, event.ReasonUnchecked
			}
		case NoticePlan:
			e := m.ev(event.Wait)
			e.Attention, e.Text = event.AttnPlan, msg
		case NoticeIdle:
			// The fold ends a turn no Stop ended with it, and takes
			// it as no news after one that did.
			m.ev(event.Interrupt).Reason = event.ReasonIdle
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
func (d *Dialect) hookSummary(tool string, input []byte) string {
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
	switch {
	case slices.Contains(d.PlanTools, tool):
		return hookPlanHead(field("plan"))
	case slices.Contains(d.QuestionTools, tool):
		if q, ok := in["questionnaire"]; ok {
			return questionnaire(jsonscan.Text(q))
		}
		return hookQuestions(in["questions"])
	case slices.Contains(d.ShellTools, tool):
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

// questionnaire is the questions of Droid's plain-text questionnaire
// ("1. [question] Which colour?", "[topic] Colour", "[option] Blue"), one
// a line.
func questionnaire(text string) string {
	var lines []string
	for line := range strings.Lines(text) {
		if _, q, ok := strings.Cut(line, "[question]"); ok {
			if q = strings.TrimSpace(q); q != "" {
				lines = append(lines, q)
			}
		}
	}
	return event.Clamp(strings.Join(lines, "\n"), maxText)
}

// questionnaireOptions is the "[option]" labels of a questionnaire that
// asks one question; none for several (a form of tabs).
func questionnaireOptions(text string) []string {
	var out []string
	questions := 0
	for line := range strings.Lines(text) {
		if strings.Contains(line, "[question]") {
			questions++
		}
		if _, o, ok := strings.Cut(line, "[option]"); ok {
			out = append(out, o)
		}
	}
	if questions != 1 {
		return nil
	}
	return toolargs.Labels(out)
}

// hookOptions is the labels of a question tool's options (Claude's
// AskUserQuestion, its dialects' likes) when it asks one question that
// takes one answer: the picker's rows, which ag-keys picks by label
// (toolargs.QuestionOptions). Several questions make a form of tabs, whose
// rows no one label names, and a multi-select's rows are toggled: none.
func (d *Dialect) hookOptions(tool string, input []byte) []string {
	if !slices.Contains(d.QuestionTools, tool) || len(input) == 0 {
		return nil
	}
	var qs []byte
	var plain string // Droid's questionnaire
	jsonscan.Members(input, func(k string, v []byte) error {
		switch k {
		case "questions":
			qs = v
		case "questionnaire":
			plain = jsonscan.Text(v)
		}
		return nil
	})
	if plain != "" {
		return questionnaireOptions(plain)
	}
	return toolargs.QuestionOptions(qs)
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

// Summary is the short text that says what a call of tool with input
// (JSON) will do, as the hook events carry it: for the agents' transcript
// readers, so a call reads the same from either source.
func (d *Dialect) Summary(tool string, input []byte) string { return d.hookSummary(tool, input) }
