package gemini

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Transcripts       = (*Provider)(nil)
	_ provider.TranscriptDrainer = (*Chat)(nil)
	_ provider.WholeFileParser   = (*ChatJSON)(nil)
)

// TranscriptRoots: Gemini's tmp/<project>/chats/session-*.jsonl, and the
// session-*.json older versions rewrote whole on every message. <project>
// is the folder's base name (numbered on a clash: work, work2) in 0.61,
// a hash of its path in older versions; a sub-agent's chat sits a level
// deeper (chats/<parent session>/<id>.jsonl) and is not the user's.
func (*Provider) TranscriptRoots(env provider.Env) []provider.Root {
	return []provider.Root{{
		Dir:   TmpDir(env),
		Globs: []string{"*/chats/session-*.jsonl", "*/chats/session-*.json"},
	}}
}

// NewTranscriptParser returns the parser for one chat file.
func (*Provider) NewTranscriptParser(path string) provider.TranscriptParser {
	if strings.HasSuffix(path, ".json") {
		return NewChatJSON(path)
	}
	return NewChat(path)
}

// ChatJSON reads a chat Gemini rewrites whole (session-*.json, before the
// JSONL chats): {"sessionId", "projectHash", "startTime", "lastUpdated",
// "messages": […]}. Each read emits what the messages hold that was not
// emitted before, as Chat does for its records.
type ChatJSON struct{ c *Chat }

// NewChatJSON starts a parser for the whole-file chat at path.
func NewChatJSON(path string) *ChatJSON {
	c := NewChat(path)
	c.whole = true
	return &ChatJSON{c}
}

// ParseWhole reads the whole file as it is now (provider.WholeFileParser).
func (j *ChatJSON) ParseWhole(data []byte, emit func(*event.Event)) error {
	var doc struct {
		SessionID string   `json:"sessionId"`
		Messages  []record `json:"messages"`
	}
	if err := lenient(json.Unmarshal(data, &doc)); err != nil {
		return fmt.Errorf("not a chat: %w", err)
	}
	c := j.c
	if c.session == "" {
		c.session = doc.SessionID
	}
	var first error
	for i := range doc.Messages {
		if err := c.message(&doc.Messages[i], emit); err != nil && first == nil {
			first = err
		}
	}
	c.Drain(emit) // the file is all that was written
	return first
}

// Parse takes a line as the whole document (a compact one-line chat).
func (j *ChatJSON) Parse(line []byte, emit func(*event.Event)) error { return j.ParseWhole(line, emit) }

// Reset forgets everything: the file is a different conversation.
func (j *ChatJSON) Reset() { j.c.Reset() }

// Session is the chat's session id.
func (j *ChatJSON) Session() string { return j.c.session }

var _ provider.Checkpointer = (*ChatJSON)(nil)

// checkpointKeep is how many of the newest messages a checkpoint keeps in
// full: the ones a rewrite may still add tokens or tool calls to.
const checkpointKeep = 32

type checkpoint struct {
	V       int                 `json:"v"`
	Session string              `json:"session"`
	Model   string              `json:"model,omitempty"`
	Open    bool                `json:"open,omitempty"`
	Before  string              `json:"before,omitempty"` // messages older than this were all emitted
	Recent  map[string]*msgSeen `json:"recent,omitempty"`
}

// Checkpoint is what a restarted reader needs (provider.Checkpointer):
// the newest messages' state in full, and the time before which every
// message was done with.
func (j *ChatJSON) Checkpoint() ([]byte, error) {
	c := j.c
	cp := checkpoint{V: 1, Session: c.session, Model: c.model, Open: c.open, Recent: map[string]*msgSeen{}}
	for i := len(c.order) - 1; i >= 0 && len(cp.Recent) < checkpointKeep; i-- {
		m := c.order[i]
		cp.Recent[m.id] = c.seen[m.id]
		cp.Before = m.t.Format(time.RFC3339Nano)
	}
	return json.Marshal(cp)
}

// Restore puts a fresh parser where Checkpoint left one.
func (j *ChatJSON) Restore(state []byte) error {
	var cp checkpoint
	if err := json.Unmarshal(state, &cp); err != nil || cp.V != 1 {
		return fmt.Errorf("not a gemini chat checkpoint")
	}
	c := j.c
	c.session, c.model, c.open = cp.Session, cp.Model, cp.Open
	for id, ms := range cp.Recent {
		if ms != nil && ms.Tools == nil {
			ms.Tools = map[string]bool{}
		}
		c.seen[id] = ms
	}
	if cp.Before != "" {
		t, err := time.Parse(time.RFC3339Nano, cp.Before)
		if err != nil {
			return err
		}
		c.before = t
	}
	return nil
}
