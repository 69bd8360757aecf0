package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/copilot/copilothook"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

// Events turns the lines of one session's events.jsonl
// (session-state/<uuid>/events.jsonl), read in order, into events (src
// log). Copilot appends a line per event and closes the file; a resumed
// session appends to the same file. Lines are
// {"type","data","id","timestamp","parentId"}; what they mean (1.0.102):
//
//	session.start, session.resume   the session (its cwd, model)
//	user.message                    a prompt: turn.start (run: interactionId)
//	assistant.message + turn_end    a model round with no tool requests ends
//	                                the prompt's turn (turn.end); a round
//	                                that asked for tools goes on
//	tool.execution_start/complete   tool.start/tool.end; ask_user and
//	                                exit_plan_mode are waits (question, plan)
//	permission.requested            the approval dialog is up (written while
//	                                it is): wait, with the kind and command
//	permission.completed            its answer: approved or denied (the turn
//	                                goes on: wait.end), cancelled (Escape: the
//	                                turn stops, tool.end denied)
//	human_response.recorded         a question answered, a plan accepted
//	abort                           Escape or Ctrl+C: interrupt
//	session.error                   a request that failed for good: turn.fail
//	session.usage_record            one request's usage: meter
//	session.usage_checkpoint        with a "rewind" pending: Escape Escape
//	                                before the reply's first byte ("esc esc
//	                                edit prompt") took the prompt back
//	                                (interrupt); once it streams, Escape
//	                                Escape is an abort
//	session.shutdown                the process left the session: session.end
//
// Everything else (hook.start/end, system.message, mode changes, turn
// starts) says nothing a state shows.
type Events struct {
	path        string
	session     string
	cwd         string
	model       string
	interaction string            // the current prompt's interactionId
	tools       map[string]string // toolCallId → tool name
	refused     map[string]bool   // calls whose plan or question was turned down
	final       bool              // this round's message asked for no tools
	text        string            // that message's content
	last        time.Time
}

// NewEvents starts a parser for the events.jsonl at path; the session id is
// its folder's name until session.start says otherwise.
func NewEvents(path string) *Events {
	return &Events{path: path, session: SessionFromPath(path), tools: map[string]string{}, refused: map[string]bool{}}
}

// SessionFromPath is the session id an events.jsonl's folder is named
// by, or "".
func SessionFromPath(path string) string {
	id := filepath.Base(filepath.Dir(path))
	if !provider.IsUUID(id) {
		return ""
	}
	return strings.ToLower(id)
}

type line struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
}

// data holds the members of every line type that ag reads.
type data struct {
	SessionID     string `json:"sessionId"`
	SelectedModel string `json:"selectedModel"`
	NewModel      string `json:"newModel"`
	Context       *struct {
		Cwd    string `json:"cwd"`
		Branch string `json:"branch"`
	} `json:"context"`
	Content       string          `json:"content"`
	Source        string          `json:"source"` // "agent-<parent>" on a sub-agent's prompt
	Parent        string          `json:"parentToolCallId"`
	InteractionID string          `json:"interactionId"`
	ToolRequests  json.RawMessage `json:"toolRequests"`
	ToolCallID    string          `json:"toolCallId"`
	ToolName      string          `json:"toolName"`
	Arguments     json.RawMessage `json:"arguments"`
	Success       *bool           `json:"success"`
	// permission.requested / completed
	Request *struct {
		Kind            string `json:"kind"`
		ToolCallID      string `json:"toolCallId"`
		FullCommandText string `json:"fullCommandText"`
		URL             string `json:"url"`
		FileName        string `json:"fileName"`
		Path            string `json:"path"`
		Intention       string `json:"intention"`
		ServerName      string `json:"serverName"`
		ToolName        string `json:"toolName"`
	} `json:"permissionRequest"`
	Result *struct {
		Kind   string `json:"kind"`
		Reason string `json:"reason"`
	} `json:"result"`
	// human_response.recorded
	Response *struct {
		Kind     string          `json:"responseKind"`
		Approved *bool           `json:"approved"`
		Feedback string          `json:"feedback"`
		Content  json.RawMessage `json:"content"`
	} `json:"response"`
	// abort, session.shutdown, session.error
	Reason       string `json:"reason"`
	ShutdownType string `json:"shutdownType"`
	ErrorType    string `json:"errorType"`
	Message      string `json:"message"`
	StatusCode   int    `json:"statusCode"`
	Usage        *usage `json:"usage"`
	CacheBreak   []struct {
		Pending []string `json:"pendingRewriteSources"`
	} `json:"promptCacheBreakState"`
}

type usage struct {
	Model            string `json:"model"`
	InputTokens      int64  `json:"inputTokens"`
	OutputTokens     int64  `json:"outputTokens"`
	CacheReadTokens  int64  `json:"cacheReadTokens"`
	CacheWriteTokens int64  `json:"cacheWriteTokens"`
	MaxPromptTokens  int64  `json:"maxPromptTokens"`
	InteractionType  string `json:"interactionType"`
	Parent           string `json:"parentToolCallId"`
}

// ignored are line types that never make an event, skipped before the
// line is decoded (system.message carries the whole system prompt).
var ignored = []string{"hook.start", "hook.end", "system.message", "assistant.turn_start",
	"session.mode_changed", "session.mode_notice_delivered", "session.info", "session.auto_mode_resolved"}

// typeOf is a line's "type" when it is the first member, as Copilot writes
// it; "" otherwise (then the line is decoded to find out).
func typeOf(b []byte) string {
	rest, ok := bytes.CutPrefix(b, []byte(`{"type":"`))
	if !ok {
		return ""
	}
	if i := bytes.IndexByte(rest, '"'); i > 0 && bytes.IndexByte(rest[:i], '\\') < 0 {
		return string(rest[:i])
	}
	return ""
}

// Line parses one line and appends its events to out.
func (p *Events) Line(b []byte, out []event.Event) ([]event.Event, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return out, nil
	}
	if t := typeOf(b); t != "" {
		for _, x := range ignored {
			if t == x {
				return out, nil
			}
		}
	}
	var l line
	if err := lenient(json.Unmarshal(b, &l)); err != nil {
		return out, fmt.Errorf("not an events.jsonl line: %w", err)
	}
	var d data
	if len(l.Data) > 0 {
		if err := lenient(json.Unmarshal(l.Data, &d)); err != nil {
			return out, fmt.Errorf("%s data: %w", l.Type, err)
		}
	}
	t := p.last
	if l.Timestamp != "" {
		ts, err := time.Parse(time.RFC3339Nano, l.Timestamp)
		if err != nil {
			return out, fmt.Errorf("bad timestamp %q", l.Timestamp)
		}
		t, p.last = ts, ts
	}
	if t.IsZero() {
		return out, nil
	}
	key := l.ID
	if key == "" {
		key = l.Timestamp
	}
	if sub := subOf(&l, &d); sub != "" {
		return p.sub(sub, &l, &d, t, key, out), nil
	}
	switch l.Type {
	case "session.start", "session.resume":
		if d.SessionID != "" {
			p.session = strings.ToLower(d.SessionID)
		}
		if d.Context != nil && d.Context.Cwd != "" {
			p.cwd = d.Context.Cwd
		}
		p.model = cmpOr(d.SelectedModel, p.model)
		e := p.ev(event.SessionStart, t, key)
		e.Text = strings.TrimPrefix(l.Type, "session.")
		e.Model = p.model
		if d.Context != nil {
			e.Branch = d.Context.Branch
		}
		out = append(out, e)
	case "session.model_change":
		if d.NewModel != "" && d.NewModel != p.model {
			p.model = d.NewModel
			e := p.ev(event.Meter, t, key)
			e.Model = p.model
			out = append(out, e)
		}
	case "user.message":
		p.interaction = d.InteractionID
		p.final, p.text = false, ""
		e := p.ev(event.TurnStart, t, key)
		e.Text = event.Clamp(d.Content, toolargs.MaxText)
		out = append(out, e)
	case "assistant.message":
		p.final = isEmpty(d.ToolRequests)
		p.text = d.Content
	case "assistant.turn_end":
		if p.final {
			p.final = false
			e := p.ev(event.TurnEnd, t, key)
			e.Text = event.Clamp(p.text, toolargs.MaxText)
			out = append(out, e)
		}
	case "tool.execution_start":
		out = append(out, p.toolStart(&d, t, key))
	case "tool.execution_complete":
		e := p.ev(event.ToolEnd, t, key)
		e.Tool, e.ToolID = p.tools[d.ToolCallID], d.ToolCallID
		delete(p.tools, d.ToolCallID)
		switch {
		case p.refused[d.ToolCallID]:
			e.Reason = "denied" // the plan turned down with Escape: the turn stops
		case d.Success != nil && !*d.Success:
			e.Reason = "error"
		}
		delete(p.refused, d.ToolCallID)
		out = append(out, e)
	case "permission.requested":
		if d.Request != nil {
			out = append(out, p.permission(&d, t, key))
		}
	case "subagent.completed", "subagent.failed":
		e := p.ev(event.TurnEnd, t, key)
		e.Sub = d.ToolCallID
		if l.Type == "subagent.failed" {
			e.Kind = event.TurnFail
			e.Reason = "error"
		}
		out = append(out, e)
	case "permission.completed":
		out = p.answered(&d, t, key, out)
	case "human_response.recorded":
		// A plan turned down with Escape stops the turn (its call's end
		// says so); anything else answered lets it go on.
		if r := d.Response; r != nil && r.Approved != nil && !*r.Approved && r.Feedback == "" {
			p.refused[d.ToolCallID] = true
		} else if r != nil {
			e := p.ev(event.WaitEnd, t, key)
			e.ToolID = d.ToolCallID
			out = append(out, e)
		}
	case "abort":
		e := p.ev(event.Interrupt, t, key)
		e.Reason = d.Reason
		out = append(out, e)
	case "session.usage_checkpoint":
		for _, c := range d.CacheBreak {
			for _, src := range c.Pending {
				if src == "rewind" {
					// The prompt is gone from the file; its run with it.
					e := p.ev(event.Interrupt, t, key)
					e.Run, e.Reason = "", "rewind"
					return append(out, e), nil
				}
			}
		}
	case "session.error":
		e := p.ev(event.TurnFail, t, key)
		e.Reason = d.ErrorType
		if d.StatusCode > 0 {
			e.Reason = cmpOr(e.Reason, "error") + " " + strconv.Itoa(d.StatusCode)
		}
		e.Text = event.Clamp(d.Message, toolargs.MaxText)
		out = append(out, e)
	case "session.usage_record":
		if u := d.Usage; u != nil {
			out = append(out, p.meter(u, t, key))
		}
	case "session.shutdown":
		e := p.ev(event.SessionEnd, t, key)
		e.Reason = cmpOr(d.ShutdownType, "shutdown")
		out = append(out, e)
	}
	return out, nil
}

// subOf is the sub-agent a line is about (the task tool's call that runs
// it), "" for the main thread. A sub-agent's lines are in its parent's
// file: its prompt (source "agent-…"), rounds and tool calls name the
// call, and so does its usage.
func subOf(l *line, d *data) string {
	switch {
	case d.Parent != "":
		return d.Parent
	case d.Usage != nil && d.Usage.Parent != "":
		return d.Usage.Parent
	case l.Type == "user.message" && strings.HasPrefix(d.Source, "agent-"):
		return "?"
	}
	return ""
}

// sub maps a sub-agent's line: its tool calls, prompts and usage are the
// session's (marked with the sub-agent), its own prompts and rounds are
// not the session's turn. Its end is subagent.completed, a main-thread
// line.
func (p *Events) sub(sub string, l *line, d *data, t time.Time, key string, out []event.Event) []event.Event {
	var e event.Event
	switch l.Type {
	case "tool.execution_start":
		e = p.toolStart(d, t, key)
	case "tool.execution_complete":
		e = p.ev(event.ToolEnd, t, key)
		e.Tool, e.ToolID = p.tools[d.ToolCallID], d.ToolCallID
		delete(p.tools, d.ToolCallID)
	case "permission.requested":
		if d.Request == nil {
			return out
		}
		e = p.permission(d, t, key)
	case "permission.completed":
		n := len(out)
		out = p.answered(d, t, key, out)
		for i := n; i < len(out); i++ {
			out[i].Sub = sub
		}
		return out
	case "session.usage_record":
		if d.Usage == nil {
			return out
		}
		e = p.meter(d.Usage, t, key)
		e.Context = nil // the sub-agent's own context, not the session's
	default:
		return out
	}
	e.Sub = sub
	return append(out, e)
}

func (p *Events) toolStart(d *data, t time.Time, key string) event.Event {
	p.tools[d.ToolCallID] = d.ToolName
	switch d.ToolName {
	case copilothook.ToolAskUser:
		e := p.ev(event.Wait, t, key)
		e.Attention, e.Tool, e.ToolID = event.AttnQuestion, d.ToolName, d.ToolCallID
		e.Text = event.Clamp(toolargs.Field(d.Arguments, "message"), toolargs.MaxText)
		e.Options = copilothook.AskOptions(d.Arguments)
		return e
	case copilothook.ToolExitPlan:
		e := p.ev(event.Wait, t, key)
		e.Attention, e.Tool, e.ToolID = event.AttnPlan, d.ToolName, d.ToolCallID
		e.Text = toolargs.Head(toolargs.Field(d.Arguments, "summary"), 12)
		return e
	}
	e := p.ev(event.ToolStart, t, key)
	e.Tool, e.ToolID = d.ToolName, d.ToolCallID
	e.Text = copilothook.ToolSummary(d.Arguments)
	return e
}

// permission is an approval dialog, up as the line is written.
func (p *Events) permission(d *data, t time.Time, key string) event.Event {
	r := d.Request
	e := p.ev(event.Wait, t, key)
	e.Attention, e.Tool, e.ToolID = event.AttnPermission, r.Kind, r.ToolCallID
	text := cmpOr(r.FullCommandText, r.URL, r.FileName, r.Path, r.ToolName, r.Intention)
	switch r.Kind {
	case "url":
		text = cmpOr(r.URL, text) // the command that fetches it is the next dialog's
	case "write":
		text = cmpOr(r.FileName, text)
	case "read":
		text = cmpOr(r.Path, text)
	}
	e.Text = event.Clamp(text, toolargs.MaxText)
	return e
}

// answered is a permission dialog's answer. Approved, and denied with
// feedback ("2. No, and tell Copilot what to do differently"), the turn
// goes on; cancelled (Escape, "Session aborted") it stops.
func (p *Events) answered(d *data, t time.Time, key string, out []event.Event) []event.Event {
	if d.Result == nil {
		return out
	}
	if d.Result.Kind == "cancelled" {
		e := p.ev(event.ToolEnd, t, key)
		e.Tool, e.ToolID, e.Reason = p.tools[d.ToolCallID], d.ToolCallID, "denied"
		return append(out, e)
	}
	e := p.ev(event.WaitEnd, t, key)
	e.ToolID, e.Reason = d.ToolCallID, d.Result.Kind
	return append(out, e)
}

// meter is one request's usage. Copilot's inputTokens count the whole
// prompt, cached parts included; the context in use is that prompt and
// the answer, against the prompt limit Copilot compacts at.
func (p *Events) meter(u *usage, t time.Time, key string) event.Event {
	if u.Model != "" {
		p.model = u.Model
	}
	e := p.ev(event.Meter, t, key)
	e.Model = p.model
	e.Tokens = &event.Tokens{
		In:         max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0),
		Out:        u.OutputTokens,
		CacheRead:  u.CacheReadTokens,
		CacheWrite: u.CacheWriteTokens,
	}
	if u.MaxPromptTokens > 0 && (u.InteractionType == "" || u.InteractionType == "conversation-agent") {
		used := u.InputTokens + u.OutputTokens
		left := leftPct(used, u.MaxPromptTokens)
		e.Context = &event.Context{Used: used, Size: u.MaxPromptTokens, LeftPct: &left}
	}
	return e
}

// leftPct is the share of the window left, rounded to a whole percent.
func leftPct(used, size int64) int {
	u := (used*100 + size/2) / size
	return int(100 - min(100, max(0, u)))
}

func (p *Events) ev(kind string, t time.Time, key string) event.Event {
	e := event.New(kind, t, ID, p.session)
	e.Src = event.SrcLog
	e.Run = p.interaction
	e.Cwd = p.cwd
	e.Transcript = p.path
	e.ID = event.MakeID(event.SrcLog, p.session, kind, key)
	return e
}

// Parse handles one line (provider.TranscriptParser).
func (p *Events) Parse(b []byte, emit func(*event.Event)) error {
	var buf [2]event.Event
	out, err := p.Line(b, buf[:0])
	for i := range out {
		emit(&out[i])
	}
	return err
}

// Reset forgets everything learnt from the file: it will be read again
// (Escape Escape rewrites it without the prompt it took back).
func (p *Events) Reset() { *p = *NewEvents(p.path) }

// lenient drops type mismatches: encoding/json still fills every other
// field, and a member a newer Copilot reshaped must not cost the line.
func lenient(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

func isEmpty(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s == "" || s == "null" || s == "[]"
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
