package qwen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
	"github.com/agwatch/ag/providers/qwen/qwenhook"
)

var (
	_ provider.Transcripts  = (*Provider)(nil)
	_ provider.Checkpointer = (*Chat)(nil)
)

// TranscriptRoots: ~/.qwen/projects/<cwd with / as ->/chats/<session>.jsonl.
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	return []provider.Root{{Dir: filepath.Join(Dir(env), "projects"), Globs: []string{"*/chats/*.jsonl"}}}
}

// NewTranscriptParser returns the parser for one chat file.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser { return NewChat(path) }

// DefaultWindow is the context window Qwen Code 0.24.4 counts against for
// a model it has no size for (DEFAULT_TOKEN_LIMIT); its Stop hook names
// the real one (context_limit), which the fold takes over this.
const DefaultWindow = 200_000

// Chat turns one Qwen Code chat file into events (src log). Qwen 0.24.4
// appends one JSON record a line, each with uuid, parentUuid, sessionId,
// timestamp, cwd and a type:
//
//	user         the prompt (provenance real_user), message.parts[].text
//	assistant    one response: model, message.parts[] (text, functionCall
//	             {id,name,args}), usageMetadata {promptTokenCount,
//	             candidatesTokenCount, thoughtsTokenCount,
//	             cachedContentTokenCount}
//	tool_result  message.parts[].functionResponse {id,name,response} and
//	             toolCallResult.status (success, error, cancelled: the
//	             user said no, and the turn ended)
//	system       telemetry, snapshots, slash commands: nothing here
//
// Every record stands alone: the parser keeps only the session, the
// model, and whether a turn is open.
type Chat struct {
	path    string
	session string
	model   string
	open    bool // a prompt started a turn no answer ended yet
}

// NewChat starts a parser for the chat at path.
func NewChat(path string) *Chat { return &Chat{path: path} }

// Reset forgets everything: the file starts over.
func (c *Chat) Reset() { *c = Chat{path: c.path} }

type record struct {
	UUID       string `json:"uuid"`
	SessionID  string `json:"sessionId"`
	Timestamp  string `json:"timestamp"`
	Type       string `json:"type"`
	Provenance string `json:"provenance"`
	Cwd        string `json:"cwd"`
	Model      string `json:"model"`
	Message    struct {
		Parts []part `json:"parts"`
	} `json:"message"`
	Usage *struct {
		Prompt   int64 `json:"promptTokenCount"`
		Output   int64 `json:"candidatesTokenCount"`
		Thoughts int64 `json:"thoughtsTokenCount"`
		Cached   int64 `json:"cachedContentTokenCount"`
	} `json:"usageMetadata"`
	ToolCallResult *struct {
		Status string `json:"status"`
	} `json:"toolCallResult"`
}

type part struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionResponse"`
}

// Parse handles one record (provider.TranscriptParser).
func (c *Chat) Parse(line []byte, emit func(*event.Event)) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	var r record
	if err := json.Unmarshal(line, &r); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return fmt.Errorf("not a chat record: %w", err)
		}
	}
	if r.SessionID == "" || r.UUID == "" {
		return nil
	}
	if c.session == "" {
		c.session = r.SessionID
	}
	t, err := time.Parse(time.RFC3339Nano, r.Timestamp)
	if err != nil {
		return nil
	}
	switch r.Type {
	case "user":
		if r.Provenance != "real_user" {
			return nil
		}
		var text []string
		for _, p := range r.Message.Parts {
			if p.Text != nil {
				text = append(text, *p.Text)
			}
		}
		if len(text) == 0 {
			return nil
		}
		c.open = true
		e := c.ev(event.TurnStart, t, &r)
		e.Text = event.Clamp(strings.TrimSpace(strings.Join(text, "\n")), qwenhook.MaxText)
		emit(&e)
	case "assistant":
		c.assistant(&r, t, emit)
	case "tool_result":
		for _, p := range r.Message.Parts {
			if f := p.FunctionResponse; f != nil && f.ID != "" {
				e := c.ev(event.ToolEnd, t, &r, f.ID)
				e.Tool, e.ToolID = f.Name, f.ID
				if tr := r.ToolCallResult; tr != nil {
					switch tr.Status {
					case "cancelled":
						e.Reason = "denied"
					case "error":
						e.Reason = "error"
					}
				}
				emit(&e)
				if e.Reason == "denied" && c.open {
					// The user said no: the turn ends, with no answer.
					c.open = false
					i := c.ev(event.Interrupt, t, &r)
					i.Reason = "denied"
					emit(&i)
				}
			}
		}
	}
	return nil
}

// assistant is one response: its meter, its calls, and the end of the
// turn when it makes none.
func (c *Chat) assistant(r *record, t time.Time, emit func(*event.Event)) {
	if r.Model != "" {
		c.model = r.Model
	}
	if u := r.Usage; u != nil {
		e := c.ev(event.Meter, t, r)
		e.Model = c.model
		e.Tokens = &event.Tokens{In: max(u.Prompt-u.Cached, 0), Out: u.Output + u.Thoughts, CacheRead: u.Cached}
		left := leftPct(u.Prompt, DefaultWindow)
		e.Context = &event.Context{Used: u.Prompt, Size: DefaultWindow, LeftPct: &left}
		emit(&e)
	}
	calls, text := 0, ""
	for _, p := range r.Message.Parts {
		switch {
		case p.FunctionCall != nil:
			calls++
			f := p.FunctionCall
			e := c.ev(event.ToolStart, t, r, f.ID)
			e.Tool, e.ToolID = f.Name, f.ID
			e.Text = qwenhook.Dialect().Summary(f.Name, f.Args)
			emit(&e)
		case p.Text != nil && !p.Thought:
			text += *p.Text
		}
	}
	if calls == 0 && c.open {
		c.open = false
		e := c.ev(event.TurnEnd, t, r)
		e.Text = event.Clamp(strings.TrimSpace(text), qwenhook.MaxText)
		e.Model = c.model
		emit(&e)
	}
}

func (c *Chat) ev(kind string, t time.Time, r *record, parts ...string) event.Event {
	e := event.New(kind, t, ID, c.session)
	e.Src = event.SrcLog
	e.Cwd = r.Cwd
	e.Transcript = c.path
	e.ID = event.MakeID(append([]string{event.SrcLog, ID, c.session, kind, r.UUID}, parts...)...)
	return e
}

// leftPct is the share of size left after used, to the nearest percent.
func leftPct(used, size int64) int {
	return max(100-int((used*100+size/2)/size), 0)
}

// checkpoint is what a chat parser knows between reads.
type checkpoint struct {
	V       int    `json:"v"`
	Session string `json:"session"`
	Model   string `json:"model,omitempty"`
	Open    bool   `json:"open,omitempty"`
}

const checkpointV = 1

// Checkpoint saves what the parser knows (provider.Checkpointer).
func (c *Chat) Checkpoint() ([]byte, error) {
	return json.Marshal(checkpoint{V: checkpointV, Session: c.session, Model: c.model, Open: c.open})
}

// Restore puts a fresh parser where Checkpoint left one.
func (c *Chat) Restore(b []byte) error {
	var cp checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return err
	}
	if cp.V != checkpointV {
		return fmt.Errorf("checkpoint version %d, want %d", cp.V, checkpointV)
	}
	c.session, c.model, c.open = cp.Session, cp.Model, cp.Open
	return nil
}

// Session is the chat's session id.
func (c *Chat) Session() string { return c.session }
