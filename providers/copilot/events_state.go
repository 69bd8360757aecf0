package copilot

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Checkpointer = (*Events)(nil)

// checkpoint is what an Events parser knows between lines, for
// provider.Checkpointer: a restarted ag-tail goes on after the last line
// read instead of reading the session's log again.
type checkpoint struct {
	V           int               `json:"v"`
	Session     string            `json:"session,omitempty"`
	Cwd         string            `json:"cwd,omitempty"`
	Model       string            `json:"model,omitempty"`
	Interaction string            `json:"interaction,omitempty"`
	Tools       map[string]string `json:"tools,omitempty"`
	Refused     []string          `json:"refused,omitempty"`
	Final       bool              `json:"final,omitempty"`
	Text        string            `json:"text,omitempty"`
	Last        time.Time         `json:"last"`
}

// Checkpoint saves what the parser knows (see provider.Checkpointer).
func (p *Events) Checkpoint() ([]byte, error) {
	c := checkpoint{V: 1, Session: p.session, Cwd: p.cwd, Model: p.model, Interaction: p.interaction,
		Tools: p.tools, Final: p.final, Text: p.text, Last: p.last}
	for id := range p.refused {
		c.Refused = append(c.Refused, id)
	}
	slices.Sort(c.Refused)
	return json.Marshal(c)
}

// Restore takes a Checkpoint back into a fresh parser.
func (p *Events) Restore(b []byte) error {
	var c checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	if c.V != 1 {
		return errors.New("copilot: unknown checkpoint version")
	}
	*p = Events{path: p.path, session: c.Session, cwd: c.Cwd, model: c.Model, interaction: c.Interaction,
		tools: c.Tools, refused: map[string]bool{}, final: c.Final, text: c.Text, last: c.Last}
	if p.tools == nil {
		p.tools = map[string]string{}
	}
	for _, id := range c.Refused {
		p.refused[id] = true
	}
	return nil
}
