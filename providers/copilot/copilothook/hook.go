// Package copilothook maps GitHub Copilot CLI's hook payloads to events:
// what ag-hook runs, apart from the rest of the Copilot provider (the
// settings.json editor, the events.jsonl parser, pane rules), so the hook
// binary links none of that. providers/copilot delegates here.
//
// Copilot's user-level hooks (the "hooks" of ~/.copilot/settings.json,
// camelCase event names) get camelCase payloads that do not name their
// event, so the installed command names it: `ag-hook copilot preToolUse`.
// Every hook prints nothing and exits 0: Copilot reads a preToolUse's and
// a permissionRequest's output as a decision.
package copilothook

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

// ID is Copilot CLI's agent id in events.
const ID = "copilot"

// Hook events (camelCase, as settings.json names them).
const (
	HookSessionStart       = "sessionStart"
	HookUserPrompt         = "userPromptSubmitted"
	HookPreToolUse         = "preToolUse"
	HookPostToolUse        = "postToolUse"
	HookPostToolUseFailure = "postToolUseFailure"
	HookNotification       = "notification"
	HookAgentStop          = "agentStop"
	HookSessionEnd         = "sessionEnd"
	// Not installed: permissionRequest decides the approval (its output
	// can allow or deny, and it fires for calls that never prompt);
	// errorOccurred fires for every retry of a failing request.
	HookPermissionRequest = "permissionRequest"
	HookErrorOccurred     = "errorOccurred"
)

// Hooks are the events ag installs, in the order settings.json lists them.
var Hooks = []string{
	HookSessionStart, HookUserPrompt, HookPreToolUse, HookPostToolUse,
	HookPostToolUseFailure, HookNotification, HookAgentStop, HookSessionEnd,
}

// Tools whose call is itself a wait: the question form (ask_user) and the
// plan review (exit_plan_mode, which no notification announces).
const (
	ToolAskUser  = "ask_user"
	ToolExitPlan = "exit_plan_mode"
)

// Mapper maps Copilot's hook payloads (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// ProcessNames: the native binary's comm is "MainThread" (the single
// executable names its main thread), which no rule can own; Copilot runs
// hooks as its direct children, on its terminal, so ag-hook's walk takes
// that first ancestor with a terminal. "copilot" is a build whose comm
// says so.
func (Mapper) ProcessNames() []string { return []string{"copilot"} }

// payload holds what ag reads of every Copilot hook payload (1.0.102).
type payload struct {
	SessionID, Cwd, Source, Prompt, ToolName  string
	Message, Title, NotificationType, HookFor string
	TranscriptPath, StopReason, Reason        string
	HookName, ErrorContext                    string
	AgentID, ParentAgentID                    string
	Timestamp                                 int64
	ToolArgs, ToolResult                      []byte
}

func (p *payload) str(k string) *string {
	switch k {
	case "sessionId":
		return &p.SessionID
	case "cwd":
		return &p.Cwd
	case "source":
		return &p.Source
	case "prompt":
		return &p.Prompt
	case "toolName":
		return &p.ToolName
	case "message":
		return &p.Message
	case "title":
		return &p.Title
	case "notification_type", "notificationType":
		return &p.NotificationType
	case "hook_event_name":
		return &p.HookFor
	case "transcriptPath":
		return &p.TranscriptPath
	case "stopReason":
		return &p.StopReason
	case "reason":
		return &p.Reason
	case "hookName":
		return &p.HookName
	case "errorContext":
		return &p.ErrorContext
	case "agentId":
		return &p.AgentID
	case "parentAgentId":
		return &p.ParentAgentID
	}
	return nil
}

func parse(raw []byte, p *payload) error {
	return jsonscan.Members(raw, func(k string, v []byte) error {
		switch k {
		case "toolArgs", "toolInput":
			p.ToolArgs = v
		case "toolResult":
			p.ToolResult = v
		case "timestamp":
			s := jsonscan.Scanner{B: v}
			p.Timestamp, _ = s.Int()
		default:
			if f := p.str(k); f != nil {
				*f = jsonscan.Text(v)
			}
		}
		return nil
	})
}

// hookOf is the event a payload is for: the one its command line named,
// else what its members say (a hand-written `ag-hook copilot` entry).
func hookOf(named string, p *payload) string {
	switch {
	case named != "":
		return named
	case p.HookName != "":
		return p.HookName
	case strings.EqualFold(p.HookFor, "notification"), p.NotificationType != "":
		return HookNotification
	case p.ErrorContext != "":
		return HookErrorOccurred
	case p.ToolResult != nil:
		return HookPostToolUse
	case p.ToolName != "":
		return HookPreToolUse
	case p.StopReason != "":
		return HookAgentStop
	case p.Source != "":
		return HookSessionStart
	case p.Prompt != "":
		return HookUserPrompt
	case p.Reason != "":
		return HookSessionEnd
	}
	return ""
}

// MapHook maps one payload to the events it means; hooks ag does not map
// (permissionRequest, errorOccurred, a notification that is no wait) give
// none.
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var p payload
	if err := parse(raw, &p); err != nil {
		return nil, fmt.Errorf("hook payload: %w", err)
	}
	hook := hookOf(hc.Event, &p)
	if hook == "" {
		return nil, errors.New("hook payload: no hook event named (ag-hook copilot EVENT) and none recognisable")
	}
	if p.SessionID == "" {
		return nil, fmt.Errorf(`hook payload: %s without "sessionId"`, hook)
	}
	// A sub-agent (the task tool) fires the same hooks under its own id,
	// naming the agent that started it: its events are the parent's
	// session's, marked with the sub-agent.
	sub := ""
	if p.AgentID != "" && p.ParentAgentID != "" && strings.EqualFold(p.SessionID, p.AgentID) {
		sub, p.SessionID = p.AgentID, p.ParentAgentID
	}
	m := mapper{p: &p, hc: hc, hook: hook, sub: sub, digest: event.MakeIDBytes(bytes.TrimSpace(raw))}
	m.at = when(p.Timestamp, hc.Now)
	switch hook {
	case HookSessionStart:
		m.ev(event.SessionStart).Text = p.Source
	case HookUserPrompt:
		m.ev(event.TurnStart).Text = event.Clamp(UserPrompt(p.Prompt), toolargs.MaxText)
	case HookPreToolUse:
		m.toolStart()
	case HookPostToolUse, HookPostToolUseFailure:
		e := m.ev(event.ToolEnd)
		e.Tool = p.ToolName
		if hook == HookPostToolUseFailure {
			e.Reason = "error"
		}
	case HookNotification:
		m.notification()
	case HookAgentStop:
		m.ev(event.TurnEnd).Transcript = p.TranscriptPath
	case HookSessionEnd:
		m.ev(event.SessionEnd).Reason = p.Reason
	}
	return m.out, nil
}

// when is the payload's own time (Copilot's clock, the one its
// events.jsonl uses) when it is plausible, else the hook's.
func when(ms int64, now time.Time) time.Time {
	if ms <= 0 {
		return now
	}
	return hooktime.Or(time.UnixMilli(ms), now)
}

type mapper struct {
	p      *payload
	hc     provider.HookContext
	hook   string
	sub    string
	digest string
	at     time.Time
	out    []event.Event
}

// ev appends an event of kind with what every Copilot hook event carries.
// The id covers the payload (which holds Copilot's millisecond timestamp)
// and the event: one hook delivered twice folds once.
func (m *mapper) ev(kind string) *event.Event {
	m.out = append(m.out, event.Event{})
	e := &m.out[len(m.out)-1]
	e.V, e.T, e.Kind, e.Agent, e.Session = event.Version, event.At(m.at), kind, ID, m.p.SessionID
	e.Src = event.SrcHook
	e.Sub = m.sub
	e.ID = event.MakeID(event.SrcHook, e.Session, m.hook, kind, m.digest, strconv.FormatInt(m.hc.Now.Unix(), 10))
	m.hc.Place(e, m.p.Cwd)
	return e
}

// toolStart: a tool call starts; the question form and the plan review
// are waits from their first moment (the plan's has no notification).
func (m *mapper) toolStart() {
	p := m.p
	switch p.ToolName {
	case ToolAskUser:
		e := m.ev(event.Wait)
		e.Attention, e.Tool = event.AttnQuestion, p.ToolName
		e.Text = event.Clamp(toolargs.Field(p.ToolArgs, "message"), toolargs.MaxText)
		e.Options = AskOptions(p.ToolArgs)
	case ToolExitPlan:
		e := m.ev(event.Wait)
		e.Attention, e.Tool = event.AttnPlan, p.ToolName
		e.Text = toolargs.Head(toolargs.Field(p.ToolArgs, "summary"), 12)
	default:
		e := m.ev(event.ToolStart)
		e.Tool = p.ToolName
		e.Text = ToolSummary(p.ToolArgs)
	}
}

// AskOptions is the choices of an ask_user form: the enum of its one field
// (requestedSchema), the rows its picker shows above "Other (type your
// answer)". A form of several fields shows them as tabs: none.
func AskOptions(args []byte) []string {
	return toolargs.SchemaOptions([]byte(toolargs.Field(args, "requestedSchema")))
}

// notification: permission_prompt is the approval dialog, up now (each of
// a call's dialogs has its own: URL access, then the command);
// elicitation_dialog a question form (ask_user, or an MCP server's).
// Other types (agent idle, shell completed) are no wait.
func (m *mapper) notification() {
	p := m.p
	switch p.NotificationType {
	case "permission_prompt":
		e := m.ev(event.Wait)
		e.Attention = event.AttnPermission
		e.Tool, e.Text = PermissionOf(p.Message)
	case "elicitation_dialog":
		// "Information requested" says nothing the form's call did not.
		m.ev(event.Wait).Attention = event.AttnQuestion
	}
}

// prompts are the permission notifications' messages (Copilot 1.0.102)
// and the permission kind each asks about, as events.jsonl names it.
var prompts = []struct{ prefix, kind string }{
	{"Run command: ", "shell"},
	{"Fetch URL: ", "url"},
	{"Edit file: ", "write"},
	{"Path permission needed: ", "read"},
	{"Use tool: ", "mcp"},
}

// PermissionOf reads a permission notification's message: "Run command:
// echo hi" is the shell permission for "echo hi". A message of another
// shape is the text, with no kind.
func PermissionOf(msg string) (kind, text string) {
	for _, pr := range prompts {
		if rest, ok := strings.CutPrefix(msg, pr.prefix); ok {
			return pr.kind, event.Clamp(strings.TrimSpace(rest), toolargs.MaxText)
		}
	}
	return "", event.Clamp(strings.TrimSpace(msg), toolargs.MaxText)
}

// ToolSummary is the one line about a tool call's arguments: the command,
// the path, the pattern, the URL, the task.
func ToolSummary(args []byte) string {
	return toolargs.Summary(args, "command", "file_path", "pattern", "path", "url", "query", "description", "prompt", "message", "summary")
}

// planRequest is how Copilot wraps a prompt typed in plan mode.
const planRequest = "\nMy request: "

// UserPrompt is what the user typed: in plan mode Copilot hands hooks its
// own "[[PLAN]] I want to create an implementation plan…" wrapper, the
// request at its end.
func UserPrompt(s string) string {
	if strings.HasPrefix(s, "[[PLAN]]") {
		if i := strings.LastIndex(s, planRequest); i >= 0 {
			return strings.TrimSpace(s[i+len(planRequest):])
		}
	}
	return s
}
