package cline

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
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/cline/clinehook"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

// TranscriptRoots: a folder per session, its messages in
// <id>/<id>.messages.json.
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	return []provider.Root{{Dir: SessionsDir(env), Globs: []string{"*/*.messages.json"}}}
}

// NewTranscriptParser reads one session's messages file.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser { return NewMessages(path) }

// NewMessages is the parser of the messages file at path.
func NewMessages(path string) *Messages {
	return &Messages{path: path, session: strings.TrimSuffix(filepath.Base(path), ".messages.json")}
}

var (
	_ provider.WholeFileParser = (*Messages)(nil)
	_ provider.Checkpointer    = (*Messages)(nil)
)

// Messages reads a session's <id>.messages.json, which Cline 3.0.65
// rewrites whole when a message is added — a prompt only together with
// the model's first answer to it: {"sessionId", "messages": [{"id",
// "role", "content": [text | tool_use | tool_result], "ts", "metrics":
// {inputTokens (the prompt, cache included), outputTokens,
// cacheReadTokens, cacheWriteTokens}, "modelInfo": {"id", "provider"}}],
// "system_prompt"}. Each message not read before is handled: a prompt is
// a turn's start (hooks started it; this names its text), a response with
// metrics a meter — its tokens, the model, the context it took (what
// Cline's footer shows), its window and cost when Cline records them
// (not for a model of an OpenAI-compatible provider). Calls, answers and
// ends are the hooks' and the database's.
//
// Messages are only ever appended, except by a compaction, which rewrites
// the file: the parser goes on after the last message it read, found by
// its id, and skips a file that no longer holds it (nothing is counted
// twice).
type Messages struct {
	path, session string
	n             int     // messages read
	last          string  // the key of the last one
	cost          float64 // the session's cost so far, when Cline records it
	hasCost       bool
}

func (m *Messages) Parse([]byte, func(*event.Event)) error {
	return errors.New("a Cline messages file is read whole")
}

// Reset forgets the file.
func (m *Messages) Reset() { m.n, m.last, m.cost, m.hasCost = 0, "", 0, false }

type message struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	TS      int64           `json:"ts"`
	Metrics *struct {
		InputTokens      int64    `json:"inputTokens"`
		OutputTokens     int64    `json:"outputTokens"`
		CacheReadTokens  int64    `json:"cacheReadTokens"`
		CacheWriteTokens int64    `json:"cacheWriteTokens"`
		Cost             *float64 `json:"cost"`
	} `json:"metrics"`
	ModelInfo *struct {
		ID            string `json:"id"`
		ContextWindow int64  `json:"contextWindow"`
	} `json:"modelInfo"`
}

func (msg *message) key(i int) string {
	if msg.ID != "" {
		return msg.ID
	}
	return strconv.Itoa(i) + "/" + msg.Role + "/" + strconv.FormatInt(msg.TS, 10)
}

// ParseWhole reads the file's messages after the last one read.
func (m *Messages) ParseWhole(data []byte, emit func(*event.Event)) error {
	var f struct {
		SessionID string    `json:"sessionId"`
		Messages  []message `json:"messages"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("%s: %w", m.path, err)
	}
	if f.SessionID != "" {
		m.session = f.SessionID
	}
	from := m.from(f.Messages)
	for i := from; i < len(f.Messages); i++ {
		m.handle(&f.Messages[i], i, emit)
	}
	if len(f.Messages) > 0 {
		m.n, m.last = len(f.Messages), f.Messages[len(f.Messages)-1].key(len(f.Messages)-1)
	}
	return nil
}

// from is the first message not read: after the last one read, where it
// is now; none when the file no longer holds it.
func (m *Messages) from(msgs []message) int {
	if m.n == 0 {
		return 0
	}
	if m.n <= len(msgs) && msgs[m.n-1].key(m.n-1) == m.last {
		return m.n
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].ID != "" && msgs[i].ID == m.last {
			return i + 1
		}
	}
	return len(msgs)
}

func (m *Messages) handle(msg *message, i int, emit func(*event.Event)) {
	at := time.UnixMilli(msg.TS)
	switch msg.Role {
	case "user":
		text, ok := userText(msg.Content)
		if !ok {
			return // a tool's result
		}
		e := event.New(event.TurnStart, at, ID, m.session)
		e.Src, e.Transcript, e.Run = event.SrcLog, m.path, msg.ID
		e.Text = event.Clamp(text, toolargs.MaxText)
		e.ID = event.MakeID(event.SrcLog, ID, m.session, "prompt", msg.key(i))
		emit(&e)
	case "assistant":
		if msg.Metrics == nil {
			return
		}
		mt := msg.Metrics
		e := event.New(event.Meter, at, ID, m.session)
		e.Src, e.Transcript = event.SrcLog, m.path
		e.ID = event.MakeID(event.SrcLog, ID, m.session, "metrics", msg.key(i))
		in := max(0, mt.InputTokens-mt.CacheReadTokens-mt.CacheWriteTokens)
		e.Tokens = &event.Tokens{In: in, Out: mt.OutputTokens, CacheRead: mt.CacheReadTokens, CacheWrite: mt.CacheWriteTokens}
		e.Context = &event.Context{Used: mt.InputTokens}
		if mi := msg.ModelInfo; mi != nil {
			e.Model = mi.ID
			if mi.ContextWindow > 0 {
				e.Context.Size = mi.ContextWindow
				left := int(100 - min(100, max(0, (mt.InputTokens*100+mi.ContextWindow/2)/mi.ContextWindow)))
				e.Context.LeftPct = &left
			}
		}
		if mt.Cost != nil {
			m.cost += *mt.Cost
			m.hasCost = true
		}
		if m.hasCost {
			c := m.cost
			e.CostUSD = &c
		}
		emit(&e)
	}
}

// userText is a user message's text, out of Cline's wrapping; ok is false
// for a message that carries a tool's result.
func userText(content json.RawMessage) (string, bool) {
	if s, err := jsonscan.Decode(content); err == nil {
		if str, isStr := s.(string); isStr {
			return clinehook.UserText(str), true
		}
	}
	var parts []string
	ok := true
	jsonscan.Elements(content, func(b []byte) error {
		switch toolargs.Field(b, "type") {
		case "text":
			parts = append(parts, toolargs.Field(b, "text"))
		case "tool_result":
			ok = false
		}
		return nil
	})
	if !ok || len(parts) == 0 {
		return "", false
	}
	return clinehook.UserText(strings.Join(parts, "\n")), true
}

// checkpoint is what Checkpoint saves.
type checkpoint struct {
	V       int      `json:"v"`
	N       int      `json:"n"`
	Last    string   `json:"last,omitempty"`
	Session string   `json:"session,omitempty"`
	Cost    *float64 `json:"cost,omitempty"`
}

// Checkpoint saves where the parser is.
func (m *Messages) Checkpoint() ([]byte, error) {
	c := checkpoint{V: 1, N: m.n, Last: m.last, Session: m.session}
	if m.hasCost {
		c.Cost = &m.cost
	}
	return json.Marshal(c)
}

// Restore goes on from a checkpoint.
func (m *Messages) Restore(b []byte) error {
	var c checkpoint
	if err := json.Unmarshal(bytes.TrimSpace(b), &c); err != nil {
		return err
	}
	if c.V != 1 || c.N < 0 {
		return fmt.Errorf("cline messages checkpoint: version %d", c.V)
	}
	m.n, m.last = c.N, c.Last
	if c.Session != "" {
		m.session = c.Session
	}
	m.cost, m.hasCost = 0, c.Cost != nil
	if c.Cost != nil {
		m.cost = *c.Cost
	}
	return nil
}
