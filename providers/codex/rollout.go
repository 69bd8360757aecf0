package codex

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/codex/codexhook"
)

// Rollout turns the lines of one Codex rollout file, read in order, into
// events (src log). Two line shapes exist: {"timestamp","type","payload"}
// (0.4x..0.14x) and the same with an "ordinal" (0.147+); the oldest
// rollouts wrote a bare meta line and bare response items, which are read
// too. Sub-agent and auto-reviewer rollouts (session_meta with
// parent_thread_id, or thread_source other than "user") are marked Skip and
// yield nothing: their threads are not the user's session.
//
// A turn.start is held back until the turn's prompt is seen (0.17x writes
// it 0.1–0.4 s after task_started), and is released by the prompt, by any
// other event of the turn, or by Flush (for a follower at the end of what
// was written so far; provider.TranscriptParser has no such call yet).
type Rollout struct {
	path     string
	session  string
	cwd      string
	branch   string
	metaOK   bool
	skip     bool
	model    string
	window   int64
	turn     string        // current turn_id
	open     bool          // a turn started and has not ended
	held     []event.Event // a turn.start (first) and what came with it, until its prompt
	newer    bool          // the file has task_started: turn ends are explicit
	prompted bool          // the current task has the user's prompt
	compact  bool          // the current task is a /compact: no prompt, a compaction
	tools    map[string]string
	total    int64  // total_token_usage.total_tokens of the last token_count
	records  bool   // the file has token_usage_record lines: tokens come from them
	response string // the last token_usage_record's response_id
	limits   string
	last     time.Time
}

// NewRollout starts a parser for the rollout at path; the session id is
// taken from the file name until session_meta says otherwise.
func NewRollout(path string) *Rollout {
	return &Rollout{path: path, session: SessionFromPath(path), tools: map[string]string{}}
}

// Session is the thread id this rollout belongs to.
func (r *Rollout) Session() string { return r.session }

// Skip reports a rollout that is not a user session (sub-agent, reviewer).
func (r *Rollout) Skip() bool { return r.skip }

// Cwd is the session's working directory from session_meta.
func (r *Rollout) Cwd() string { return r.cwd }

// line is one rollout line, decoded in one pass (payload included).
type line struct {
	Timestamp string   `json:"timestamp"`
	Ordinal   *int64   `json:"ordinal"`
	Type      string   `json:"type"`
	Payload   *payload `json:"payload"`
	// The oldest shape: a bare meta line.
	ID string `json:"id"`
}

type payload struct {
	Type string `json:"type"`
	// session_meta
	ID             string          `json:"id"`
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	ThreadSource   string          `json:"thread_source"`
	ParentThreadID string          `json:"parent_thread_id"`
	Source         json.RawMessage `json:"source"`
	Git            *struct {
		Branch string `json:"branch"`
	} `json:"git"`
	// turn_context, event_msg
	TurnID             string          `json:"turn_id"`
	Model              string          `json:"model"`
	ModelContextWindow int64           `json:"model_context_window"`
	Message            string          `json:"message"`
	LastAgentMessage   string          `json:"last_agent_message"`
	Error              json.RawMessage `json:"error"` // task_complete of a failed turn
	Kind               string          `json:"kind"`
	Reason             string          `json:"reason"`
	Info               *tokenInfo      `json:"info"`
	RateLimits         *rateLimits     `json:"rate_limits"`
	ResponseID         string          `json:"response_id"`
	Usage              *usage          `json:"usage"`
	Item               *completedItem  `json:"item"`
	// response_item
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Meta      *messageMeta    `json:"internal_chat_message_metadata_passthrough"`
	Role      string          `json:"role"`
	Phase     string          `json:"phase"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Action    json.RawMessage `json:"action"`
	Output    json.RawMessage `json:"output"`
}

// messageMeta is 0.17x's provenance of a message's content parts.
type messageMeta struct {
	Items []struct {
		Provenance struct {
			Type string `json:"type"`
		} `json:"provenance"`
	} `json:"content_item_metadata"`
}

// byUser: every part of the message was typed by the user (not the
// harness: environment context, AGENTS.md, turn_aborted notes).
func (m *messageMeta) byUser() bool {
	for _, it := range m.Items {
		if it.Provenance.Type != "user" {
			return false
		}
	}
	return len(m.Items) > 0
}

type completedItem struct {
	Type    string `json:"type"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// Line parses one line and appends its events to out.
func (r *Rollout) Line(b []byte, out []event.Event) ([]event.Event, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return out, nil
	}
	var l line
	if err := lenient(json.Unmarshal(b, &l)); err != nil {
		return out, fmt.Errorf("not a rollout line: %w", err)
	}
	t := r.last
	if l.Timestamp != "" {
		p, err := event.ParseTime(l.Timestamp)
		if err != nil {
			return out, fmt.Errorf("bad timestamp %q", l.Timestamp)
		}
		t, r.last = p, p
	}
	typ, p := l.Type, l.Payload
	if p == nil {
		switch {
		case l.Type == "" && l.ID != "":
			typ = "session_meta" // oldest shape: a bare meta line
		case l.Type != "":
			typ = "response_item" // oldest shape: a bare response item
		default:
			return out, nil // e.g. {"record_type":"state"}
		}
		p = new(payload)
		if err := lenient(json.Unmarshal(b, p)); err != nil {
			return out, fmt.Errorf("%s payload: %w", typ, err)
		}
	}
	if typ == "session_meta" {
		r.meta(p)
		return out, nil
	}
	if r.skip || t.IsZero() {
		return out, nil
	}
	key := l.Timestamp
	if l.Ordinal != nil {
		key = "#" + strconv.FormatInt(*l.Ordinal, 10)
	}
	switch typ {
	case "turn_context":
		if p.TurnID != "" {
			r.turn = p.TurnID
		}
		if p.Model != "" && p.Model != r.model {
			r.model = p.Model
			e := r.ev(event.Meter, t, "model", key)
			e.Model = p.Model
			if len(r.held) > 0 {
				r.held[0].Model = p.Model
				r.held = append(r.held, e) // keep it behind its turn.start
			} else {
				out = append(out, e)
			}
		}
	case "compacted":
		out = r.compaction(t, key, out)
	case "event_msg":
		out = r.eventMsg(p, t, key, out)
	case "token_usage_record":
		out = r.record(p, t, key, out)
	case "response_item":
		out = r.responseItem(p, t, key, out)
	}
	return out, nil
}

// lenient drops type mismatches: encoding/json still fills every other
// field, and a member a newer Codex reshaped must not cost the line.
func lenient(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// Flush releases a held turn.start (its prompt did not follow).
func (r *Rollout) Flush(out []event.Event) []event.Event { return r.flush(out) }

// compaction notes the context compacted (a "compacted" line, 0.171.0's
// ContextCompaction item): in a task with no prompt of the user's it is a
// /compact typed at the prompt — the compact tool, manual, whose end the
// task's end is; inside a prompted turn it is automatic and says nothing.
func (r *Rollout) compaction(t time.Time, key string, out []event.Event) []event.Event {
	if !r.open || r.prompted || r.compact {
		return out
	}
	r.compact = true
	out = r.flush(out)
	e := r.ev(event.ToolStart, t, key)
	e.Tool, e.Text = event.ToolCompact, event.CompactManual
	return append(out, e)
}

func (r *Rollout) flush(out []event.Event) []event.Event {
	out = append(out, r.held...)
	r.held = r.held[:0]
	return out
}

func (r *Rollout) meta(p *payload) {
	if r.metaOK {
		return // a fork or resume repeats older threads' meta: the first is ours
	}
	r.metaOK = true
	if id := p.ID; id != "" {
		r.session = id
	} else if p.SessionID != "" {
		r.session = p.SessionID
	}
	r.cwd = p.Cwd
	if p.Git != nil {
		r.branch = p.Git.Branch
	}
	r.skip = isSubagentMeta(p)
}

// isSubagentMeta: a rollout Codex wrote for a thread it spawned itself (a
// sub-agent, the auto-approval reviewer), not one the user is driving.
func isSubagentMeta(p *payload) bool {
	if p.ParentThreadID != "" {
		return true
	}
	if p.ThreadSource != "" && p.ThreadSource != "user" {
		return true
	}
	// Some versions write source as {"subagent": ...} instead of "cli".
	src := bytes.TrimSpace(p.Source)
	return len(src) > 0 && src[0] == '{' && bytes.Contains(src, []byte(`"subagent"`))
}

func (r *Rollout) ev(kind string, t time.Time, parts ...string) event.Event {
	e := event.New(kind, t, ID, r.session)
	e.Src = event.SrcLog
	e.Run = r.turn
	e.Cwd = r.cwd
	e.Branch = r.branch
	e.Transcript = r.path
	e.ID = event.MakeID(append([]string{event.SrcLog, r.session, kind, r.turn}, parts...)...)
	return e
}

func (r *Rollout) eventMsg(p *payload, t time.Time, key string, out []event.Event) []event.Event {
	switch p.Type {
	case "task_started", "turn_started":
		out = r.flush(out)
		r.newer, r.open = true, true
		r.prompted, r.compact = false, false
		if p.TurnID != "" {
			r.turn = p.TurnID
		}
		if p.ModelContextWindow > 0 {
			r.window = p.ModelContextWindow
		}
		e := r.ev(event.TurnStart, t, key)
		e.Model = r.model
		r.held = append(r.held, e)
	case "user_message":
		if p.Kind == "" || p.Kind == "plain" {
			out = r.prompt(p.Message, t, key, out)
		}
	case "item_completed":
		if p.Item != nil && p.Item.Type == "ContextCompaction" {
			out = r.compaction(t, key, out)
		}
		if p.Item != nil && p.Item.Type == "UserMessage" {
			var parts []string
			for _, c := range p.Item.Content {
				parts = append(parts, c.Text)
			}
			out = r.prompt(strings.Join(parts, "\n"), t, key, out)
		}
	case "task_complete", "turn_complete":
		out = r.flush(out)
		if p.TurnID != "" {
			r.turn = p.TurnID
		}
		r.open = false
		if r.compact && !r.prompted {
			// /compact at the prompt ends there, as Claude's does. (A
			// prompt after the compaction made it a turn: the context
			// was compacted before it, and the turn ends as usual.)
			r.compact = false
			e := r.ev(event.ToolEnd, t, key)
			e.Tool, e.Text = event.ToolCompact, event.CompactManual
			out = append(out, e)
			break
		}
		if kind, msg, failed := turnError(p.Error); failed {
			// 0.171.0 ends a turn the API failed with task_complete and an
			// error (no Stop hook fires): what Codex showed, and its kind.
			e := r.ev(event.TurnFail, t, key)
			e.Reason, e.Text = kind, codexhook.Clamp(msg)
			out = append(out, e)
			break
		}
		e := r.ev(event.TurnEnd, t, key)
		e.Text = codexhook.Clamp(p.LastAgentMessage)
		out = append(out, e)
	case "turn_aborted":
		out = r.flush(out)
		if p.TurnID != "" {
			r.turn = p.TurnID
		}
		r.open = false
		e := r.ev(event.Interrupt, t, key)
		e.Reason = p.Reason
		out = append(out, e)
	case "token_count":
		out = r.tokens(p, t, key, out)
	}
	return out
}

// turnError reads task_complete's error, {"message": "…", "codex_error_info":
// "other"} (the info may be an object naming its variant, the error a bare
// string): the kind ("error" when unnamed) and the first line of the
// message. failed is false for no error (absent or null).
func turnError(raw json.RawMessage) (kind, msg string, failed bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", "", false
	}
	var e struct {
		Message string          `json:"message"`
		Info    json.RawMessage `json:"codex_error_info"`
	}
	if json.Unmarshal(raw, &e.Message) != nil && json.Unmarshal(raw, &e) != nil {
		return "error", "", true
	}
	if json.Unmarshal(e.Info, &kind) != nil {
		var variant map[string]json.RawMessage
		if json.Unmarshal(e.Info, &variant) == nil && len(variant) == 1 {
			for k := range variant {
				kind = k
			}
		}
	}
	msg, _, _ = strings.Cut(strings.TrimSpace(e.Message), "\n")
	return cmp.Or(kind, "error"), msg, true
}

// injected are the prefixes of user-role text Codex adds itself.
var injected = []string{"<environment_context>", "<user_instructions>", "<turn_aborted>",
	"<ENVIRONMENT_CONTEXT>", "# AGENTS.md instructions", "<user_shell_command>"}

func (r *Rollout) prompt(text string, t time.Time, key string, out []event.Event) []event.Event {
	s := strings.TrimSpace(text)
	if s == "" {
		return out
	}
	for _, pre := range injected {
		if strings.HasPrefix(s, pre) {
			return out
		}
	}
	r.prompted = true
	switch {
	case len(r.held) > 0:
		r.held[0].Text = codexhook.Clamp(text)
		return r.flush(out)
	case r.open && r.newer:
		return out // a prompt queued into a running turn: no new turn
	}
	// Older rollouts have no task_started: the prompt starts the turn.
	r.open = true
	e := r.ev(event.TurnStart, t, key)
	e.Text = codexhook.Clamp(text)
	e.Model = r.model
	return append(out, e)
}

func (r *Rollout) responseItem(p *payload, t time.Time, key string, out []event.Event) []event.Event {
	switch p.Type {
	case "function_call", "custom_tool_call", "local_shell_call":
		out = r.flush(out)
		name := p.Name
		if name == "" && p.Type == "local_shell_call" {
			name = "local_shell"
		}
		r.tools[p.CallID] = name
		e := r.ev(event.ToolStart, t, p.CallID, key)
		e.Tool, e.ToolID = name, p.CallID
		switch {
		case p.Arguments != "":
			e.Text = codexhook.ToolSummary(json.RawMessage(p.Arguments))
		case p.Input != "":
			e.Text = inputSummary(p.Input)
		case len(p.Action) > 0:
			e.Text = codexhook.ToolSummary(p.Action)
		}
		out = append(out, e)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		out = r.flush(out)
		e := r.ev(event.ToolEnd, t, p.CallID, key)
		e.Tool, e.ToolID = r.tools[p.CallID], p.CallID
		if userDenied(p.Output) {
			e.Reason = "denied"
		}
		delete(r.tools, p.CallID)
		out = append(out, e)
	case "message":
		// 0.17x marks where each part of a user message came from: the
		// user's own text releases the held turn.start ~0.2 s before the
		// UserMessage item does. Without that mark the item is awaited
		// (0.147 mixes personal instructions into a user message).
		if p.Role == "user" && len(r.held) > 0 && p.Meta != nil && p.Meta.byUser() {
			var parts []string
			for _, c := range p.Content {
				parts = append(parts, c.Text)
			}
			out = r.prompt(strings.Join(parts, "\n"), t, key, out)
		}
		// Rollouts without task_complete end a turn with the final
		// assistant message; newer ones mark commentary with a phase.
		if p.Role == "assistant" && !r.newer && r.open && p.Phase != "commentary" {
			out = r.flush(out)
			r.open = false
			out = append(out, r.ev(event.TurnEnd, t, key))
		}
	}
	return out
}

// userDenied reports a tool output that says the user refused the call at
// its approval prompt: 0.171 writes "…\naborted by user" (Escape, "No, and
// tell Codex what to do differently") some 20 ms before turn_aborted, and
// older Codex "exec command rejected by user". The fold takes a denied
// tool.end to idle rather than back to working.
func userDenied(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	return s == "aborted by user" || strings.HasSuffix(s, "rejected by user")
}

// inputSummary describes a free-form tool input: the files an apply_patch
// touches, else the first non-blank line (code-mode scripts).
func inputSummary(s string) string {
	var files []string
	for _, l := range strings.Split(s, "\n") {
		for _, pre := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(l, pre); ok {
				files = append(files, strings.TrimSpace(f))
			}
		}
	}
	if len(files) > 0 {
		return codexhook.Clamp(strings.Join(files, " "))
	}
	return firstLine(s)
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return codexhook.Clamp(l)
		}
	}
	return ""
}

// Parse handles one line, calling emit for each event it yields (the
// provider.TranscriptParser shape).
func (r *Rollout) Parse(b []byte, emit func(*event.Event)) error {
	var buf [4]event.Event
	out, err := r.Line(b, buf[:0])
	for i := range out {
		emit(&out[i])
	}
	return err
}

// Reset forgets everything learnt from the file: it will be read again.
func (r *Rollout) Reset() { *r = *NewRollout(r.path) }

// Drain releases a held turn.start once the reader has read all that was
// written so far (provider.TranscriptDrainer): a prompt written later
// would otherwise hold the turn's start until the next line arrives.
func (r *Rollout) Drain(emit func(*event.Event)) {
	out := r.flush(nil)
	for i := range out {
		emit(&out[i])
	}
}
