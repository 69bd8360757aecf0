package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/gemini/geminihook"
)

// Chat turns one Gemini chat file, read line by line, into events (src
// log). Gemini CLI (0.61.0, chatRecordingService) appends JSONL records:
//
//	{"sessionId","projectHash","startTime","lastUpdated","kind"}  the header
//	{"id","timestamp","type","content",…}                        a message, upserted by id
//	{"$set":{…}}                                                 metadata; "messages" replaces the list
//	{"$rewindTo":"<id>"}                                         /rewind
//
// A gemini message is written when its response ends (tokens, model), and
// again with toolCalls once all of its calls finished — success, error,
// or cancelled when the user said no. Its tokens are counted once. A user
// message is a prompt, or the tool results sent back (functionResponse).
// Info and error messages are what the UI showed: "Request cancelled."
// (Escape, a denied tool), "[API Error: …]".
//
// When Gemini rewrites its history (a cancelled turn truncated, a
// compression, a resume), it records the kept history again as new
// messages — a user message that opens with the <session_context> block,
// gemini messages with parts and no model — then a $set of the list:
// history, never news. The chat records no end of a turn, so an answer
// with no tool calls is held as its end until the reader has read all
// that was written (Drain): its tool calls, if any, come later.
type Chat struct {
	path    string
	session string
	cwd     string
	cwdRead bool
	model   string
	seen    map[string]*msgSeen // by message id
	open    bool                // a prompt started a turn that has not ended
	guessed bool                // the turn ended on its last answer, read with nothing after it: a cancel or an error may still come
	replay  bool                // inside a history rewrite, until its $set
	resumed bool                // a $set named the session again: /resume
	prompt  *event.Event        // a prompt's turn.start, until its turn shows it is real
	end     *event.Event        // an answer's turn.end, until nothing follows it
	endMsg  string              // the message the held end is for
	whole   bool                // a whole-file chat: every message is the file's own
	order   []msgAt             // the newest messages in the order first seen, for checkpoints
	before  time.Time           // restored: messages older than this were all emitted
}

type msgAt struct {
	id string
	t  time.Time
}

// msgSeen is what was emitted for one message.
type msgSeen struct {
	Tokens bool            `json:"tokens,omitempty"`
	Tools  map[string]bool `json:"tools,omitempty"` // tool call id → its end emitted
}

// NewChat starts a parser for the chat at path.
func NewChat(path string) *Chat {
	c := &Chat{path: path}
	c.Reset()
	return c
}

// Reset forgets everything read: the file starts over.
func (c *Chat) Reset() {
	*c = Chat{path: c.path, cwd: c.cwd, cwdRead: c.cwdRead, whole: c.whole, seen: map[string]*msgSeen{}}
}

// Session is the chat's session id (from its header).
func (c *Chat) Session() string { return c.session }

// record is one line (or one message of a whole-file chat), decoded in one
// pass; fields of a surprising type are dropped (lenient).
type record struct {
	// header
	SessionID   string `json:"sessionId"`
	ProjectHash string `json:"projectHash"`
	Kind        string `json:"kind"`
	// message
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Tokens    *tokens         `json:"tokens"`
	Model     *string         `json:"model"`
	ToolCalls []toolCall      `json:"toolCalls"`
	// patches
	Set      *setRecord `json:"$set"`
	RewindTo *string    `json:"$rewindTo"`
}

type setRecord struct {
	SessionID string   `json:"sessionId"`
	Messages  []record `json:"messages"`
}

type tokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
}

type toolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Status    string          `json:"status"`
	Timestamp string          `json:"timestamp"`
}

// part is one element of a message's content array.
type part struct {
	Text             *string         `json:"text"`
	Thought          bool            `json:"thought"`
	FunctionCall     json.RawMessage `json:"functionCall"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
}

// Parse handles one line (provider.TranscriptParser).
func (c *Chat) Parse(line []byte, emit func(*event.Event)) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var r record
	if err := lenient(json.Unmarshal(line, &r)); err != nil {
		return fmt.Errorf("not a chat record: %w", err)
	}
	return c.apply(&r, emit)
}

// Drain releases what was held for a later line (provider.TranscriptDrainer):
// the reader has read all that was written, so a held prompt is real and an
// answer with no tool calls ended its turn.
func (c *Chat) Drain(emit func(*event.Event)) {
	c.release(emit)
	if c.end != nil {
		c.flushEnd(emit)
		c.guessed = true
	}
}

func lenient(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

func (c *Chat) apply(r *record, emit func(*event.Event)) error {
	switch {
	case r.ID != "":
		return c.message(r, emit)
	case r.Set != nil:
		if r.Set.SessionID != "" && c.session != "" {
			// A resumed session names itself again; the rewritten list that
			// follows carries the moment it was resumed.
			c.session, c.resumed = r.Set.SessionID, true
		}
		if r.Set.Messages != nil {
			c.history(r.Set.Messages, emit)
		}
	case r.SessionID != "" && r.ProjectHash != "":
		if c.session == "" {
			c.session = r.SessionID
		}
	}
	return nil
}

// history is a $set of the whole message list: what it holds is known or
// history. It ends a rewrite; after /resume it starts the session again.
func (c *Chat) history(msgs []record, emit func(*event.Event)) {
	c.replay = false
	var newest time.Time
	for i := range msgs {
		m := &msgs[i]
		if m.ID != "" && c.seen[m.ID] == nil {
			c.seen[m.ID] = &msgSeen{Tokens: true, Tools: toolsDone(m.ToolCalls)}
		}
		if t, err := time.Parse(time.RFC3339Nano, m.Timestamp); err == nil && t.After(newest) {
			newest = t
		}
	}
	if c.resumed && !newest.IsZero() && c.session != "" {
		c.resumed = false
		c.release(emit)
		c.flushEnd(emit)
		e := c.ev(event.SessionStart, newest, "resume", newest.Format(time.RFC3339Nano))
		e.Text = "resume"
		emit(&e)
	}
}

func toolsDone(calls []toolCall) map[string]bool {
	m := map[string]bool{}
	for _, tc := range calls {
		m[tc.ID] = true
	}
	return m
}

func (c *Chat) message(r *record, emit func(*event.Event)) error {
	t, err := time.Parse(time.RFC3339Nano, r.Timestamp)
	if err != nil || t.IsZero() {
		return fmt.Errorf("message %s: bad timestamp %q", r.ID, r.Timestamp)
	}
	if c.session == "" {
		return nil // no header yet: nothing to say whose it is
	}
	ms := c.seen[r.ID]
	fresh := ms == nil
	if fresh {
		if t.Before(c.before) {
			return nil // emitted before a restart
		}
		ms = &msgSeen{Tools: map[string]bool{}}
		c.seen[r.ID] = ms
		if len(c.order) == 4*checkpointKeep {
			c.order = append(c.order[:0], c.order[len(c.order)-checkpointKeep:]...)
		}
		c.order = append(c.order, msgAt{r.ID, t})
	}
	switch r.Type {
	case "user":
		if fresh {
			c.user(r, t, emit)
		}
	case "gemini":
		c.gemini(r, ms, t, emit)
	case "info":
		if fresh && (c.open || c.guessed) && !c.replay && contentText(r.Content) == "Request cancelled." {
			c.release(emit)
			c.dropEnd() // the answer was cut short
			c.open, c.guessed = false, false
			e := c.ev(event.Interrupt, t, r.ID)
			e.Reason = "user"
			emit(&e)
		}
	case "error":
		if fresh && (c.open || c.guessed) && !c.replay {
			c.release(emit)
			c.dropEnd()
			c.open, c.guessed = false, false
			e := c.ev(event.TurnFail, t, r.ID)
			e.Text = event.Clamp(contentText(r.Content), 2000)
			e.Reason = errorKind(e.Text)
			emit(&e)
		}
	}
	return nil
}

// user: a prompt starts a turn; tool results and rewritten history do not.
func (c *Chat) user(r *record, t time.Time, emit func(*event.Event)) {
	parts := contentParts(r.Content)
	text, injected, results := "", false, false
	for i, p := range parts {
		switch {
		case p.FunctionResponse != nil:
			results = true
		case p.Text != nil && i == 0 && strings.HasPrefix(strings.TrimSpace(*p.Text), "<session_context>"):
			injected = true
		case p.Text != nil && !isBlock(*p.Text):
			text += *p.Text
		}
	}
	if injected && !c.whole {
		// Gemini opens its history with this block: a user message that
		// starts with it is the history recorded again.
		c.release(emit)
		c.flushEnd(emit)
		c.replay = true
		return
	}
	if c.replay {
		return
	}
	if results {
		c.dropEnd() // tool results go back to the model: the turn goes on
		return
	}
	if ignored(text) {
		return
	}
	c.release(emit)
	c.flushEnd(emit)
	c.open, c.guessed = true, false
	e := c.ev(event.TurnStart, t, r.ID)
	e.Text = event.Clamp(strings.TrimSpace(text), 2000)
	e.Model = c.model
	c.prompt = &e
}

// gemini: one response of the model — its meter once, its tool calls, and
// (held) the end of the turn when it only says something.
func (c *Chat) gemini(r *record, ms *msgSeen, t time.Time, emit func(*event.Event)) {
	if r.Model == nil && !c.whole {
		// No model: a history message recorded again (parts, no tokens),
		// and the prompt held just before it was history too.
		c.prompt = nil
		c.replay = true
		return
	}
	if c.replay {
		return
	}
	if !c.open && c.prompt == nil && cancelled(r) {
		// Ctrl+C: Gemini writes "Request cancelled." first, then the
		// cancelled turn's calls (Escape writes them before): their ends,
		// no new turn.
		for _, tc := range r.ToolCalls {
			if !ms.Tools[tc.ID] {
				ms.Tools[tc.ID] = true
				e := c.ev(event.ToolEnd, t, tc.ID, "end")
				e.Tool, e.ToolID, e.Reason = tc.Name, tc.ID, "denied"
				emit(&e)
			}
		}
		return
	}
	c.release(emit)
	if c.endMsg != r.ID {
		c.dropEnd() // a later response: the held answer did not end the turn
	}
	if r.Model != nil && *r.Model != "" {
		c.model = *r.Model
	}
	c.open, c.guessed = true, false // the model answered: a turn runs (again, if its end was drained)
	if r.Tokens != nil && !ms.Tokens {
		ms.Tokens = true
		e := c.ev(event.Meter, t, r.ID)
		e.Model = c.model
		tk := r.Tokens
		e.Tokens = &event.Tokens{In: max(tk.Input-tk.Cached, 0) + tk.Tool, Out: tk.Output + tk.Thoughts, CacheRead: tk.Cached}
		e.Context = Context(tk.Input, c.model)
		emit(&e)
	}
	for _, tc := range r.ToolCalls {
		c.dropEnd()
		done, known := ms.Tools[tc.ID]
		if !known {
			e := c.ev(event.ToolStart, t, tc.ID)
			e.Tool, e.ToolID = tc.Name, tc.ID
			e.Text = geminihook.ToolSummary(tc.Name, tc.Args)
			e.Options = geminihook.ToolOptions(tc.Name, tc.Args)
			emit(&e)
			ms.Tools[tc.ID] = false
		}
		if !done && terminal(tc.Status) {
			ms.Tools[tc.ID] = true
			end := t
			if tt, err := time.Parse(time.RFC3339Nano, tc.Timestamp); err == nil && tt.After(end) {
				end = tt
			}
			e := c.ev(event.ToolEnd, end, tc.ID, "end")
			e.Tool, e.ToolID = tc.Name, tc.ID
			switch tc.Status {
			case "cancelled":
				e.Reason = "denied" // the user said no (or pressed Escape)
			case "error":
				e.Reason = "error"
			}
			emit(&e)
		}
	}
	if len(r.ToolCalls) == 0 && c.open && c.end == nil && contentText(r.Content) != "" {
		e := c.ev(event.TurnEnd, t, r.ID)
		e.Text = event.Clamp(contentText(r.Content), 2000)
		c.end, c.endMsg = &e, r.ID
	}
}

// release emits a held prompt: its turn is under way.
func (c *Chat) release(emit func(*event.Event)) {
	if c.prompt != nil {
		emit(c.prompt)
		c.prompt = nil
	}
}

func (c *Chat) dropEnd() { c.end, c.endMsg = nil, "" }

// flushEnd emits a held end: what came next was no part of that turn.
func (c *Chat) flushEnd(emit func(*event.Event)) {
	if c.end != nil {
		c.open, c.guessed = false, false
		emit(c.end)
		c.dropEnd()
	}
}

// cancelled: a response that says nothing, all of whose calls were
// cancelled.
func cancelled(r *record) bool {
	if len(r.ToolCalls) == 0 || contentText(r.Content) != "" {
		return false
	}
	for _, tc := range r.ToolCalls {
		if tc.Status != "cancelled" {
			return false
		}
	}
	return true
}

func terminal(status string) bool {
	return status == "success" || status == "error" || status == "cancelled"
}

func (c *Chat) ev(kind string, t time.Time, parts ...string) event.Event {
	e := event.New(kind, t, ID, c.session)
	e.Src = event.SrcLog
	e.Cwd = c.projectRoot()
	e.Transcript = c.path
	// Not the path: a resumed .json chat is copied whole into a .jsonl
	// one, and the same message must fold once.
	e.ID = event.MakeID(append([]string{event.SrcLog, ID, c.session, kind}, parts...)...)
	return e
}

// projectRoot is the project's folder, which Gemini writes beside the
// chats (tmp/<project>/.project_root), read once.
func (c *Chat) projectRoot() string {
	if !c.cwdRead {
		c.cwdRead = true
		b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(c.path)), ".project_root"))
		if err == nil && len(b) < 4096 {
			if s := strings.TrimSpace(string(b)); filepath.IsAbs(s) {
				c.cwd = s
			}
		}
	}
	return c.cwd
}

// contentParts reads content as parts: an array of them, or a string.
func contentParts(raw json.RawMessage) []part {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []part{{Text: &s}}
	}
	var ps []part
	json.Unmarshal(raw, &ps)
	return ps
}

// contentText is the text of a message, thoughts left out.
func contentText(raw json.RawMessage) string {
	var b strings.Builder
	for _, p := range contentParts(raw) {
		if p.Text != nil && !p.Thought {
			b.WriteString(*p.Text)
		}
	}
	return strings.TrimSpace(b.String())
}

// ignored: what Gemini itself never counts as a prompt (its
// isIgnoredUserContent: nothing, a slash command, "?" help), and what it
// adds to the history as the user's with no turn to follow (0.61.0): a
// command run in shell mode ("!"), the note that the user left plan mode
// with Shift+Tab.
func ignored(text string) bool {
	t := strings.TrimSpace(text)
	return t == "" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "?") ||
		strings.HasPrefix(t, "<session_context>") || strings.HasPrefix(t, "<hook_context>") ||
		strings.HasPrefix(t, shellModeNote) || strings.HasPrefix(t, planExitNote)
}

// The user messages Gemini CLI writes itself.
const (
	shellModeNote = "I ran the following shell command:\n```sh\n"
	planExitNote  = "User has manually exited Plan Mode."
)

// isBlock: a text part that is wholly one <tag>…</tag> block the CLI adds
// (context from hooks, @file contents), not what was typed.
func isBlock(s string) bool {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "<") || !strings.HasSuffix(s, ">") {
		return false
	}
	end := strings.IndexAny(s, " >\n")
	if end < 2 {
		return false
	}
	return strings.HasSuffix(s, "</"+s[1:end]+">")
}

// errorKind names an error the UI showed: "[API Error: …]" with the HTTP
// status inside it.
func errorKind(text string) string {
	if !strings.HasPrefix(text, "[API Error") {
		return "error"
	}
	for _, k := range []struct{ code, kind string }{
		{`"code":429`, "rate_limit"}, {"RESOURCE_EXHAUSTED", "rate_limit"},
		{`"code":401`, "authentication_failed"}, {`"code":403`, "authentication_failed"},
		{`"code":500`, "server_error"}, {`"code":503`, "server_error"}, {"UNAVAILABLE", "server_error"},
	} {
		if strings.Contains(text, k.code) {
			return k.kind
		}
	}
	return "api_error"
}
