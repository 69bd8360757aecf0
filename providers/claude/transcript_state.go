package claude

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Checkpointer = (*Parser)(nil)

// checkpoint is what a Parser knows between lines, for provider.Checkpointer.
type checkpoint struct {
	V       int               `json:"v"`
	Session string            `json:"session,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Branch  string            `json:"branch,omitempty"`
	LastT   time.Time         `json:"last_t"`
	Prompt  string            `json:"prompt,omitempty"`
	Tools   map[string]string `json:"tools,omitempty"`
	BG      []string          `json:"bg,omitempty"`
	Ended   string            `json:"ended,omitempty"`
	// Seen is the keys of the newest responses (seenSaved).
	Seen [][2]string `json:"seen,omitempty"`
}

// seenKept is how many of the newest responses a parser remembers: a
// response's streamed lines come together, and a copy of an older one
// (a resumed session) has the same meter id, which ag-tail counts once
// wherever it comes from — so a parser's memory stays small however long
// the transcript.
const seenKept = 8

// seenSaved is how many of them a checkpoint keeps: the lines of the
// response being streamed when it was taken.
const seenSaved = 2

// Checkpoint saves what the parser knows (see provider.Checkpointer).
func (p *Parser) Checkpoint() ([]byte, error) {
	c := checkpoint{V: 1, Cwd: p.cwd, Branch: p.branch, LastT: p.lastT, Prompt: p.prompt, Ended: p.ended}
	if !p.fixed {
		c.Session = p.session
	}
	if len(p.tools) > 0 {
		c.Tools = p.tools
	}
	for id := range p.bg {
		c.BG = append(c.BG, id)
	}
	for _, k := range p.recent[max(0, len(p.recent)-seenSaved):] {
		c.Seen = append(c.Seen, [2]string{k.id, k.req})
	}
	return json.Marshal(c)
}

// Restore takes a Checkpoint back into a fresh parser.
func (p *Parser) Restore(b []byte) error {
	var c checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	if c.V != 1 {
		return errors.New("claude: unknown checkpoint version")
	}
	p.Reset()
	if !p.fixed {
		p.session = c.Session
	}
	p.cwd, p.branch, p.lastT, p.prompt, p.ended = c.Cwd, c.Branch, c.LastT, c.Prompt, c.Ended
	for id, name := range c.Tools {
		p.tools[id] = name
	}
	for _, id := range c.BG {
		p.bg[id] = true
	}
	for _, k := range c.Seen {
		p.remember(msgKey{k[0], k[1]})
	}
	return nil
}

// remember notes a response's key, keeping the newest seenKept.
func (p *Parser) remember(k msgKey) {
	if len(p.recent) == seenKept {
		copy(p.recent, p.recent[1:])
		p.recent = p.recent[:seenKept-1]
	}
	p.recent = append(p.recent, k)
}

// seen reports whether the response (id, req) is one of the newest: a
// scan of seenKept keys, with no string made for the line's request id.
func (p *Parser) seen(id string, req jstr) bool {
	for i := len(p.recent) - 1; i >= 0; i-- {
		if k := &p.recent[i]; k.id == id && req.is(k.req) {
			return true
		}
	}
	return false
}

// lastMsg is the id of the newest response: the lines of one response
// come together, so a line's id is most often that one.
func (p *Parser) lastMsg() string {
	if len(p.recent) == 0 {
		return ""
	}
	return p.recent[len(p.recent)-1].id
}
