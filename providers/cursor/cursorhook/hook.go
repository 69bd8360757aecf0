// Package cursorhook maps Cursor agent's (cursor-agent) hook payloads to
// events: what ag-hook runs, apart from the rest of the Cursor provider
// (the hooks.json editor, pane rules), so the hook binary links none of
// that. providers/cursor delegates here.
//
// Cursor runs each hook through a `zsh -c` wrapper with the payload on
// stdin and reads the answer on stdout: for preToolUse an empty answer is
// a deny, so every hook answers "{}" (no decision) whatever happens.
package cursorhook

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Cursor agent's id in events.
const ID = "cursor"

// Hook events ag installs, in the order hooks.json lists them (cursor-agent
// 2026.1.16 and newer run them).
const (
	HookSessionStart       = "sessionStart"
	HookBeforeSubmitPrompt = "beforeSubmitPrompt"
	HookPreToolUse         = "preToolUse"
	HookPostToolUse        = "postToolUse"
	HookPostToolUseFailure = "postToolUseFailure"
	HookStop               = "stop"
	HookSessionEnd         = "sessionEnd"
	// Older installs hooked the shell alone; still read, never installed:
	// a call waiting on a file edit's approval fired neither.
	HookBeforeShell = "beforeShellExecution"
	HookAfterShell  = "afterShellExecution"
)

// Hooks are the events install writes.
var Hooks = []string{
	HookSessionStart, HookBeforeSubmitPrompt, HookPreToolUse, HookPostToolUse,
	HookPostToolUseFailure, HookStop, HookSessionEnd,
}

// Estimate is how long a call may run with no postToolUse before it is
// taken as waiting for approval: Cursor has no hook for its prompt, and
// auto-approved calls end within it (the seeds' figure).
const Estimate = 10 * time.Second

// Mapper maps Cursor's hook payloads (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// ProcessNames: the stock binary and the bare "agent" it installs beside
// it. On Linux the process's comm is "MainThread" (node names its thread),
// which no rule can own: ag-hook's walk then takes the first ancestor with
// a terminal, the agent in its pane, above the tty-less zsh wrapper.
func (Mapper) ProcessNames() []string { return []string{"cursor-agent", "agent"} }

// Answer is "{}" for every hook: no decision. Cursor takes an empty
// preToolUse answer as a deny.
func (Mapper) Answer([]byte) []byte { return []byte("{}\n") }

// payload holds what ag reads of a Cursor hook payload (common members:
// conversation_id, generation_id, model, hook_event_name, cursor_version,
// workspace_roots, user_email, transcript_path; session_id where the
// event has one).
type payload struct {
	ConversationID, SessionID, GenerationID, HookEventName string
	Model, CursorVersion, TranscriptPath, Prompt, Cwd      string
	ToolName, ToolUseID, Command, Status, Reason           string
	FailureType, ErrorMessage, Root                        string
	ToolInput                                              []byte
}

func (p *payload) str(k string) *string {
	switch k {
	case "conversation_id":
		return &p.ConversationID
	case "session_id":
		return &p.SessionID
	case "generation_id":
		return &p.GenerationID
	case "hook_event_name":
		return &p.HookEventName
	case "model":
		return &p.Model
	case "cursor_version":
		return &p.CursorVersion
	case "transcript_path":
		return &p.TranscriptPath
	case "prompt":
		return &p.Prompt
	case "cwd":
		return &p.Cwd
	case "tool_name":
		return &p.ToolName
	case "tool_use_id":
		return &p.ToolUseID
	case "command":
		return &p.Command
	case "status":
		return &p.Status
	case "reason":
		return &p.Reason
	case "failure_type":
		return &p.FailureType
	case "error_message":
		return &p.ErrorMessage
	}
	return nil
}

func parse(raw []byte, p *payload) error {
	return jsonscan.Members(raw, func(k string, v []byte) error {
		switch k {
		case "tool_input":
			p.ToolInput = v
		case "workspace_roots":
			jsonscan.Elements(v, func(r []byte) error {
				if p.Root == "" {
					p.Root = jsonscan.Text(r)
				}
				return nil
			})
		default:
			if f := p.str(k); f != nil {
				*f = jsonscan.Text(v)
			}
		}
		return nil
	})
}

// MapHook maps one payload to the event it means; hooks ag does not map
// give none.
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var p payload
	if err := parse(raw, &p); err != nil {
		return nil, fmt.Errorf("hook payload: %w", err)
	}
	if p.HookEventName == "" {
		return nil, errors.New(`hook payload: no "hook_event_name"`)
	}
	// The chat: conversation_id, equal to session_id where both are given
	// (stop carries only the first, some events only the second).
	session := p.ConversationID
	if session == "" {
		session = p.SessionID
	}
	if session == "" {
		return nil, fmt.Errorf(`hook payload: %s without "conversation_id"`, p.HookEventName)
	}
	e, ok := hookEvent(&p)
	if !ok {
		return nil, nil
	}
	e.V, e.T, e.Agent, e.Session, e.Src = event.Version, event.At(hc.Now), ID, session, event.SrcHook
	e.Run = p.GenerationID
	e.Transcript = p.TranscriptPath
	e.ID = event.MakeID(event.SrcHook, session, p.HookEventName, e.Kind,
		event.MakeIDBytes(bytes.TrimSpace(raw)), strconv.FormatInt(hc.Now.Unix(), 10))
	hc.Place(&e, p.Root)
	return []event.Event{e}, nil
}

// hookEvent maps the payload's own fields; ok is false for a hook ag does
// not fold.
func hookEvent(p *payload) (e event.Event, ok bool) {
	switch p.HookEventName {
	case HookSessionStart:
		e.Kind, e.Text = event.SessionStart, "startup"
		e.Model = p.Model
	case HookBeforeSubmitPrompt:
		// Also the first hook of a chat resumed with --resume, which fires
		// no sessionStart: the fold makes the session from it.
		e.Kind, e.Text = event.TurnStart, event.Clamp(p.Prompt, toolargs.MaxText)
		e.Model = p.Model
	case HookPreToolUse:
		e.Kind, e.Tool, e.ToolID = event.ToolStart, p.ToolName, p.ToolUseID
		e.Text = ToolSummary(p.ToolInput)
	case HookPostToolUse:
		e.Kind, e.Tool, e.ToolID = event.ToolEnd, p.ToolName, p.ToolUseID
	case HookPostToolUseFailure:
		e.Kind, e.Tool, e.ToolID = event.ToolEnd, p.ToolName, p.ToolUseID
		e.Reason = "error"
		if p.FailureType == "permission_denied" {
			e.Reason = "denied"
		}
	case HookBeforeShell, HookAfterShell:
		e.Kind, e.Tool, e.Text = event.ToolStart, "Shell", event.Clamp(p.Command, toolargs.MaxText)
		if p.HookEventName == HookAfterShell {
			e.Kind, e.Text = event.ToolEnd, ""
		}
	case HookStop:
		switch p.Status {
		case "aborted": // C-c, or the run cancelled
			e.Kind, e.Reason = event.Interrupt, "aborted"
		case "error":
			e.Kind, e.Reason = event.TurnFail, "error"
		default: // "completed"
			e.Kind = event.TurnEnd
		}
	case HookSessionEnd:
		e.Kind, e.Reason = event.SessionEnd, p.Reason
	default:
		return e, false
	}
	return e, true
}

// ToolSummary is the one line about a call: the command, the file, the
// pattern, the URL.
func ToolSummary(input []byte) string {
	return toolargs.Summary(input, "command", "file_path", "target_file", "pattern", "path", "url", "query", "description", "prompt")
}
