// Package agyhook maps Antigravity CLI's (agy) hook payloads to events:
// what ag-hook runs, apart from the rest of the provider.
//
// agy (1.1.x) has five hook events — PreToolUse, PostToolUse,
// PreInvocation, PostInvocation, Stop — registered under a name of one's
// own in ~/.gemini/config/hooks.json. Its payloads are camelCase
// (conversationId, transcriptPath) and carry no event name: Stop's has
// fullyIdle, the invocations' invocationNum (Pre and Post look alike).
// agy passes its whole environment, GEMINI_API_KEY included, to hooks:
// ag-hook reads only the payload and never writes the environment.
package agyhook

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

// ID is Antigravity's agent id in events.
const ID = "antigravity"

// Hooks are the events ag registers: only those where the no-decision
// answer {} is inert. Never PreToolUse: its decision is required there and
// {} silently denies the tool call. Never PostToolUse either: it says
// nothing the invocations do not.
var Hooks = []string{"PreInvocation", "PostInvocation", "Stop"}

// Mapper maps agy's hook payloads (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// ProcessNames: the CLI runs as agy.
func (Mapper) ProcessNames() []string { return []string{"agy"} }

// Answer is {} on every path: agy wants a JSON object from each hook, and
// {} decides nothing on the events ag registers.
func (Mapper) Answer([]byte) []byte { return []byte("{}") }

type payload struct {
	ConversationID, TranscriptPath, Cwd     string
	TerminationReason, Error, InvocationNum string
	FullyIdle, Invocation                   bool
}

// MapHook maps one payload by its shape: Stop (fullyIdle) ends the turn —
// failed when it says so, interrupted when cancelled — and an invocation
// (invocationNum) is the turn at work.
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var p payload
	err := jsonscan.Members(raw, func(k string, v []byte) error {
		switch k {
		case "conversationId":
			p.ConversationID = jsonscan.Text(v)
		case "transcriptPath":
			p.TranscriptPath = jsonscan.Text(v)
		case "cwd", "workspacePath":
			if p.Cwd == "" {
				p.Cwd = jsonscan.Text(v)
			}
		case "terminationReason":
			p.TerminationReason = jsonscan.Text(v)
		case "error":
			p.Error = jsonscan.Text(v)
		case "fullyIdle":
			p.FullyIdle = true
		case "invocationNum":
			p.Invocation, p.InvocationNum = true, jsonscan.Text(v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("hook payload: %w", err)
	}
	if p.ConversationID == "" {
		return nil, errors.New(`hook payload: no "conversationId"`)
	}
	var kind string
	switch {
	case p.FullyIdle:
		kind = stopKind(p.TerminationReason, p.Error)
	case p.Invocation:
		kind = event.TurnStart
	default:
		return nil, nil
	}
	out := make([]event.Event, 1)
	e := &out[0]
	e.V, e.T, e.Kind, e.Agent, e.Session = event.Version, event.At(hc.Now), kind, ID, p.ConversationID
	e.Src = event.SrcHook
	e.ID = event.MakeID(event.SrcHook, e.Session, kind, event.MakeIDBytes(bytes.TrimSpace(raw)),
		strconv.FormatInt(hc.Now.Unix(), 10))
	hc.Place(e, p.Cwd)
	e.Transcript = p.TranscriptPath
	switch kind {
	case event.TurnFail:
		e.Reason = p.TerminationReason
		if e.Reason == "" || e.Reason == "error" {
			e.Reason = "error"
		}
		e.Text = event.Clamp(p.Error, 2000)
	case event.Interrupt:
		e.Reason = "user"
	}
	return out, nil
}

// stopKind: how Stop says the turn ended.
func stopKind(reason, errText string) string {
	r := strings.ToLower(reason)
	switch {
	case r == "error" || r == "max_steps_exceeded" || strings.TrimSpace(errText) != "":
		return event.TurnFail
	case strings.Contains(r, "cancel") || strings.Contains(r, "interrupt") || strings.Contains(r, "abort"):
		return event.Interrupt
	}
	return event.TurnEnd
}
