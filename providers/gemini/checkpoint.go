package gemini

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Checkpointer = (*Chat)(nil)
	_ provider.Checkpointer = (*ChatJSON)(nil)
)

// checkpointKeep is how many of the newest messages a checkpoint keeps in
// full: the ones a later line (a response written again with its tool
// calls) or a rewrite of the whole file may still add tokens or tool
// calls to. Older ones were all emitted.
const checkpointKeep = 32

// checkpoint is what a chat parser knows between reads, for
// provider.Checkpointer: a few hundred bytes a message kept.
type checkpoint struct {
	V       int    `json:"v"`
	Session string `json:"session"`
	Model   string `json:"model,omitempty"`
	Open    bool   `json:"open,omitempty"`
	Guessed bool   `json:"guessed,omitempty"`
	Replay  bool   `json:"replay,omitempty"`
	Resumed bool   `json:"resumed,omitempty"`
	// What a line chat holds back until a later line or a Drain (nothing,
	// after a Drain: ag-tail checkpoints then).
	Prompt json.RawMessage `json:"prompt,omitempty"`
	End    json.RawMessage `json:"end,omitempty"`
	EndMsg string          `json:"end_msg,omitempty"`
	Msgs   []seenAt        `json:"msgs,omitempty"` // the newest messages, oldest first
}

// seenAt is one kept message: its id, time and what was emitted for it.
type seenAt struct {
	ID string    `json:"id"`
	T  time.Time `json:"t"`
	msgSeen
}

const checkpointV = 2

// Checkpoint saves what the parser knows (provider.Checkpointer).
func (c *Chat) Checkpoint() ([]byte, error) {
	cp := checkpoint{V: checkpointV, Session: c.session, Model: c.model, Open: c.open, Guessed: c.guessed,
		Replay: c.replay, Resumed: c.resumed, EndMsg: c.endMsg}
	if c.prompt != nil {
		cp.Prompt = event.Marshal(c.prompt)
	}
	if c.end != nil {
		cp.End = event.Marshal(c.end)
	}
	for _, m := range c.order[max(0, len(c.order)-checkpointKeep):] {
		if ms := c.seen[m.id]; ms != nil {
			cp.Msgs = append(cp.Msgs, seenAt{m.id, m.t, *ms})
		}
	}
	return json.Marshal(cp)
}

// Restore puts a fresh parser where Checkpoint left one: messages older
// than the oldest kept are taken as emitted.
func (c *Chat) Restore(state []byte) error {
	var cp checkpoint
	if err := json.Unmarshal(state, &cp); err != nil {
		return err
	}
	if cp.V != checkpointV {
		return errors.New("gemini: not a chat checkpoint of this version")
	}
	var prompt, end *event.Event
	for _, x := range []struct {
		raw json.RawMessage
		e   **event.Event
	}{{cp.Prompt, &prompt}, {cp.End, &end}} {
		if len(x.raw) > 0 {
			*x.e = new(event.Event)
			if err := event.Decode(x.raw, *x.e); err != nil {
				return err
			}
		}
	}
	c.Reset()
	c.session, c.model, c.open, c.guessed, c.replay, c.resumed = cp.Session, cp.Model, cp.Open, cp.Guessed, cp.Replay, cp.Resumed
	c.prompt, c.end, c.endMsg = prompt, end, cp.EndMsg
	for i, m := range cp.Msgs {
		ms := m.msgSeen
		if ms.Tools == nil {
			ms.Tools = map[string]bool{}
		}
		c.seen[m.ID] = &ms
		c.order = append(c.order, msgAt{m.ID, m.T})
		if i == 0 {
			c.before = m.T
		}
	}
	return nil
}

// Checkpoint is the chat's (provider.Checkpointer).
func (j *ChatJSON) Checkpoint() ([]byte, error) { return j.c.Checkpoint() }

// Restore is the chat's (provider.Checkpointer).
func (j *ChatJSON) Restore(state []byte) error { return j.c.Restore(state) }
