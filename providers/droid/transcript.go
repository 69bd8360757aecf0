package droid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/droid/droidhook"
	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Transcripts     = (*Provider)(nil)
	_ provider.Checkpointer    = (*Session)(nil)
	_ provider.Checkpointer    = (*Totals)(nil)
	_ provider.WholeFileParser = (*Totals)(nil)
)

// TranscriptRoots: ~/.factory/sessions/<cwd with / as ->/<id>.jsonl, and
// beside each the <id>.settings.json Droid rewrites with the session's
// token totals.
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	return []provider.Root{{Dir: filepath.Join(Dir(env), "sessions"), Globs: []string{"*/*.jsonl", "*/*.settings.json"}}}
}

// NewTranscriptParser returns the parser for one session file.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser {
	if strings.HasSuffix(path, ".settings.json") {
		return NewTotals(path)
	}
	return NewSession(path)
}

// Session turns one Droid session file into events (src log). Droid
// 0.225.2 appends JSON lines:
//
//	{"type":"session_start","id","title","cwd",…}
//	{"type":"message","id","timestamp","message":{"role","content":[…]}}
//	{"type":"agent_turn_outcome","turnId","reason":"completed|cancelled"}
//
// A message's content holds text, tool_use {id,name,input} and
// tool_result {tool_use_id,is_error,content} parts; an assistant message
// names its modelId. Messages with a visibility (user_only: a hook run;
// llm_only: "Request cancelled by user") or a hookEventName are Droid's
// own bookkeeping, not the conversation. No message carries tokens: the
// totals are in the settings file (Totals).
type Session struct {
	path    string
	session string
	cwd     string
	model   string
	answer  string    // the turn's last text, for its end
	at      time.Time // the newest message's time: a turn's outcome has none
}

// NewSession starts a parser for the session file at path.
func NewSession(path string) *Session {
	return &Session{path: path, session: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
}

// Reset forgets everything: the file starts over.
func (s *Session) Reset() { *s = *NewSession(s.path) }

type line struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Cwd       string `json:"cwd"`
	Timestamp string `json:"timestamp"`
	Reason    string `json:"reason"`
	TurnID    string `json:"turnId"`
	Message   struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Visibility string          `json:"visibility"`
		Hook       string          `json:"hookEventName"`
		ModelID    string          `json:"modelId"`
	} `json:"message"`
}

type content struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// Parse handles one line (provider.TranscriptParser).
func (s *Session) Parse(raw []byte, emit func(*event.Event)) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var l line
	if err := lenient(json.Unmarshal(raw, &l)); err != nil {
		return fmt.Errorf("not a session line: %w", err)
	}
	switch l.Type {
	case "session_start":
		if l.ID != "" {
			s.session = l.ID
		}
		s.cwd = l.Cwd
	case "agent_turn_outcome":
		id := l.TurnID
		if l.Reason == "cancelled" {
			e := s.ev(event.Interrupt, s.at, id)
			e.Reason = "user"
			emit(&e)
		} else {
			e := s.ev(event.TurnEnd, s.at, id)
			e.Text, e.Model = event.Clamp(strings.TrimSpace(s.answer), droidhook.MaxText), s.model
			emit(&e)
		}
		s.answer = ""
	case "message":
		m := &l.Message
		t, err := time.Parse(time.RFC3339Nano, l.Timestamp)
		if err != nil {
			return nil
		}
		if t.After(s.at) {
			s.at = t
		}
		if m.Visibility != "" || m.Hook != "" || strings.HasPrefix(l.ID, "context-") {
			return nil
		}
		var parts []content
		if lenient(json.Unmarshal(m.Content, &parts)) != nil {
			return nil
		}
		s.message(&l, t, parts, emit)
	}
	return nil
}

func (s *Session) message(l *line, t time.Time, parts []content, emit func(*event.Event)) {
	switch l.Message.Role {
	case "user":
		var text []string
		for _, p := range parts {
			switch p.Type {
			case "text":
				text = append(text, p.Text)
			case "tool_result":
				e := s.ev(event.ToolEnd, t, p.ToolUseID, "end")
				e.ToolID = p.ToolUseID
				if p.IsError {
					e.Reason = "error"
					if bytes.Contains(p.Content, []byte("cancelled by user")) {
						e.Reason = "denied"
					}
				}
				emit(&e)
			}
		}
		if len(text) > 0 {
			s.answer = ""
			e := s.ev(event.TurnStart, t, l.ID)
			e.Text = event.Clamp(strings.TrimSpace(strings.Join(text, "\n")), droidhook.MaxText)
			emit(&e)
		}
	case "assistant":
		if l.Message.ModelID != "" {
			s.model = l.Message.ModelID
		}
		for _, p := range parts {
			switch p.Type {
			case "text":
				s.answer = p.Text
			case "tool_use":
				e := s.ev(event.ToolStart, t, p.ID)
				e.Tool, e.ToolID = p.Name, p.ID
				e.Text = droidhook.Dialect().Summary(p.Name, p.Input)
				emit(&e)
			}
		}
	}
}

// ev is an event of the session at t, its id made of parts.
func (s *Session) ev(kind string, t time.Time, parts ...string) event.Event {
	e := event.New(kind, t, ID, s.session)
	e.Src = event.SrcLog
	e.Cwd = s.cwd
	e.Transcript = s.path
	e.ID = event.MakeID(append([]string{event.SrcLog, ID, s.session, kind}, parts...)...)
	return e
}

func lenient(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

type sessionCheckpoint struct {
	V       int       `json:"v"`
	Session string    `json:"session"`
	Cwd     string    `json:"cwd,omitempty"`
	Model   string    `json:"model,omitempty"`
	Answer  string    `json:"answer,omitempty"`
	At      time.Time `json:"at"`
}

const checkpointV = 1

// Checkpoint saves what the parser knows (provider.Checkpointer).
func (s *Session) Checkpoint() ([]byte, error) {
	return json.Marshal(sessionCheckpoint{V: checkpointV, Session: s.session, Cwd: s.cwd, Model: s.model, Answer: s.answer, At: s.at})
}

// Restore puts a fresh parser where Checkpoint left one.
func (s *Session) Restore(b []byte) error {
	var cp sessionCheckpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return err
	}
	if cp.V != checkpointV {
		return fmt.Errorf("checkpoint version %d, want %d", cp.V, checkpointV)
	}
	s.session, s.cwd, s.model, s.answer, s.at = cp.Session, cp.Cwd, cp.Model, cp.Answer, cp.At
	return nil
}
