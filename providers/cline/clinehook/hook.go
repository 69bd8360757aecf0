// Package clinehook maps Cline CLI's hook payloads to events: what
// ag-hook runs, apart from the rest of the Cline provider (the hook files'
// installer, the store and transcript readers, pane rules), so the hook
// binary links none of that.
//
// Cline runs every file named after an event in its hooks directory with
// the event's JSON on stdin. ag's file for each event runs `ag-hook cline
// <Event>`; the payload also names it, by Cline's inner name ("hookName":
// "agent_start" for TaskStart). Every payload carries the session
// (sessionContext.rootSessionId), the task (taskId, a conversation id
// that outlives one prompt), the agent and its parent (a sub-agent's),
// the workspace roots and a timestamp. Verified on 3.0.65 (testdata):
//
//	TaskStart        every prompt (and the turn Cline starts itself after
//	                 switch_to_act_mode is approved)
//	PreToolUse       every call, before any approval dialog: no proof the
//	                 call runs (tool.start), except ask_question, whose call
//	                 is the question (a wait)
//	PostToolUse      the call's end; a denied call's output says "rejected
//	                 by the user" (Escape on the dialog says the same)
//	TaskComplete     the turn's end
//	TaskError        the model failed: the turn fails
//	SessionShutdown  Escape at work: the turn stops, the session goes on
//	TaskCancel       an abort (not seen here): the turn stops
//
// UserPromptSubmit, TaskResume and PreCompact never fired here; /exit
// fires nothing (the process's end says the session is gone).
package clinehook

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/internal/hooktime"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Cline CLI's agent id in events.
const ID = "cline"

// Hook events, as their files are named.
const (
	TaskStart        = "TaskStart"
	TaskResume       = "TaskResume"
	TaskCancel       = "TaskCancel"
	TaskComplete     = "TaskComplete"
	TaskError        = "TaskError"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
	SessionShutdown  = "SessionShutdown"
	// Not installed: it says nothing of a session's state.
	PreCompact = "PreCompact"
)

// Hooks are the events ag installs a file for.
var Hooks = []string{TaskStart, TaskResume, UserPromptSubmit, PreToolUse, PostToolUse, TaskComplete, TaskError, TaskCancel, SessionShutdown}

// inner are Cline's own names of the events, as payloads say them.
var inner = map[string]string{
	"agent_start": TaskStart, "agent_resume": TaskResume, "agent_abort": TaskCancel, "agent_end": TaskComplete,
	"agent_error": TaskError, "tool_call": PreToolUse, "tool_result": PostToolUse, "prompt_submit": UserPromptSubmit,
	"session_shutdown": SessionShutdown,
}

// ToolAsk is the question tool: its call is the question, up at once.
const ToolAsk = "ask_question"

// Mapper maps Cline's hook payloads (providers/hooks lists it).
type Mapper struct{}

func (Mapper) ID() string { return ID }

// ProcessNames: the native binary (npm links `cline` to it; the package's
// own launcher keeps a copy as `.cline`) runs the hooks itself, through
// the shell the file names.
func (Mapper) ProcessNames() []string { return []string{"cline", ".cline"} }

// payload is what ag reads of a Cline hook payload.
type payload struct {
	Session, Task, HookName, Agent, Parent, Cwd, Timestamp string
	Prompt                                                 string
	ToolName, ToolID                                       string
	ToolInput, ToolOutput                                  []byte
	ToolError, Status, ErrName, ErrMessage                 string
}

func parse(raw []byte, p *payload) error {
	return jsonscan.Members(raw, func(k string, v []byte) error {
		switch k {
		case "taskId":
			p.Task = jsonscan.Text(v)
		case "hookName":
			p.HookName = jsonscan.Text(v)
		case "agent_id":
			p.Agent = jsonscan.Text(v)
		case "parent_agent_id":
			p.Parent = jsonscan.Text(v)
		case "timestamp":
			p.Timestamp = jsonscan.Text(v)
		case "sessionContext":
			p.Session = toolargs.Field(v, "rootSessionId")
		case "workspaceRoots":
			jsonscan.Elements(v, func(e []byte) error {
				if p.Cwd == "" {
					p.Cwd = jsonscan.Text(e)
				}
				return nil
			})
		case "tool_call", "tool_result":
			return jsonscan.Members(v, func(k string, v []byte) error {
				switch k {
				case "id":
					p.ToolID = jsonscan.Text(v)
				case "name":
					p.ToolName = jsonscan.Text(v)
				case "input":
					p.ToolInput = v
				case "output":
					p.ToolOutput = v
				case "error":
					p.ToolError = jsonscan.Text(v)
				}
				return nil
			})
		case "turn":
			p.Status = toolargs.Field(v, "status")
		case "error":
			p.ErrName, p.ErrMessage = toolargs.Field(v, "name"), toolargs.Field(v, "message")
		case "userPromptSubmit", "promptSubmit":
			p.Prompt = toolargs.Field(v, "prompt")
		case "prompt", "userMessage":
			if p.Prompt == "" {
				p.Prompt = jsonscan.Text(v)
			}
		}
		return nil
	})
}

// MapHook maps one payload to the events it means.
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var p payload
	if err := parse(raw, &p); err != nil {
		return nil, fmt.Errorf("hook payload: %w", err)
	}
	hook := hc.Event
	if hook == "" {
		hook = inner[p.HookName]
	}
	if hook == "" {
		return nil, errors.New("hook payload: no hook event named (ag-hook cline EVENT) and none recognisable")
	}
	if p.Session == "" {
		return nil, fmt.Errorf("hook payload: %s without sessionContext.rootSessionId", hook)
	}
	m := mapper{p: &p, hc: hc, hook: hook, digest: event.MakeIDBytes(bytes.TrimSpace(raw)), at: when(p.Timestamp, hc.Now)}
	switch hook {
	case TaskStart, TaskResume:
		m.ev(event.TurnStart)
	case UserPromptSubmit:
		m.ev(event.TurnStart).Text = event.Clamp(UserText(p.Prompt), toolargs.MaxText)
	case PreToolUse:
		if p.ToolName == ToolAsk {
			e := m.ev(event.Wait)
			e.Attention, e.Tool, e.ToolID = event.AttnQuestion, p.ToolName, p.ToolID
			e.Text = event.Clamp(toolargs.Field(p.ToolInput, "question"), toolargs.MaxText)
			e.Options = toolargs.InputOptions(p.ToolInput)
			return m.out, nil
		}
		e := m.ev(event.ToolStart)
		e.Tool, e.ToolID, e.Text = p.ToolName, p.ToolID, ToolSummary(p.ToolInput)
	case PostToolUse:
		e := m.ev(event.ToolEnd)
		e.Tool, e.ToolID = p.ToolName, p.ToolID
		switch {
		case Rejected(p.ToolOutput):
			// The model reads the refusal and goes on: no end of the turn.
			e.Reason = "refused" // as other agents' refusals that let the turn go on (hookdialect)
		case p.ToolError != "":
			e.Reason = "error"
		}
	case TaskComplete:
		if p.Status != "" && p.Status != "completed" {
			e := m.ev(event.Interrupt)
			e.Reason = p.Status
			break
		}
		m.ev(event.TurnEnd)
	case TaskError:
		e := m.ev(event.TurnFail)
		e.Reason, e.Text = p.ErrName, event.Clamp(p.ErrMessage, toolargs.MaxText)
	case TaskCancel, SessionShutdown:
		m.ev(event.Interrupt).Reason = strings.ToLower(hook)
	}
	return m.out, nil
}

// when is the payload's own time when it is plausible, else the hook's.
func when(ts string, now time.Time) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, ts)
	return hooktime.Or(t, now)
}

type mapper struct {
	p      *payload
	hc     provider.HookContext
	hook   string
	digest string
	at     time.Time
	out    []event.Event
}

// ev appends an event of kind with what every Cline hook event carries: a
// sub-agent's events are its root session's, marked with the sub-agent.
func (m *mapper) ev(kind string) *event.Event {
	m.out = append(m.out, event.Event{})
	e := &m.out[len(m.out)-1]
	e.V, e.T, e.Kind, e.Agent, e.Session = event.Version, event.At(m.at), kind, ID, m.p.Session
	e.Src = event.SrcHook
	if m.p.Parent != "" {
		e.Sub = m.p.Agent
	}
	e.ID = event.MakeID(event.SrcHook, e.Session, m.hook, kind, m.digest, strconv.FormatInt(m.hc.Now.Unix(), 10))
	m.hc.Place(e, m.p.Cwd)
	return e
}

// Rejected reports whether a call's output is Cline's refusal of it: the
// user said no (or pressed Escape) on its dialog.
func Rejected(output []byte) bool {
	return bytes.Contains(output, []byte("rejected by the user"))
}

// ToolSummary is the one line about a Cline tool call: its commands (one a
// line), the path, the question, the task, the URL, the query.
func ToolSummary(input []byte) string {
	var lines []string
	jsonscan.Members(input, func(k string, v []byte) error {
		switch k {
		case "commands", "queries":
			jsonscan.Elements(v, func(e []byte) error {
				lines = append(lines, jsonscan.Text(e))
				return nil
			})
		case "files", "requests":
			jsonscan.Elements(v, func(e []byte) error {
				if s := toolargs.Summary(e, "path", "url"); s != "" {
					lines = append(lines, s)
				}
				return nil
			})
		}
		return nil
	})
	if len(lines) > 0 {
		return event.Clamp(strings.Join(lines, "\n"), toolargs.MaxText)
	}
	return toolargs.Summary(input, "command", "path", "question", "task", "url", "query")
}

// UserText is what the user typed, out of Cline's wrapping of it:
// `<user_input mode="act">…</user_input>`, with a `<mode_notice>` of a
// switch between plan and act before the text.
func UserText(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "<user_input"); ok {
		if i := strings.IndexByte(rest, '>'); i >= 0 {
			s = strings.TrimSuffix(strings.TrimSpace(rest[i+1:]), "</user_input>")
		}
	}
	for {
		i := strings.Index(s, "<mode_notice>")
		j := strings.Index(s, "</mode_notice>")
		if i < 0 || j < i {
			break
		}
		s = s[:i] + s[j+len("</mode_notice>"):]
	}
	return strings.TrimSpace(s)
}
