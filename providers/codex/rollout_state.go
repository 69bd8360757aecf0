package codex

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Checkpointer = (*Rollout)(nil)

// checkpoint is what a Rollout knows between lines, for
// provider.Checkpointer. It is taken after Drain, so no turn.start is
// held then.
type checkpoint struct {
	V        int               `json:"v"`
	Session  string            `json:"session,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
	Branch   string            `json:"branch,omitempty"`
	MetaOK   bool              `json:"meta_ok,omitempty"`
	Skip     bool              `json:"skip,omitempty"`
	Model    string            `json:"model,omitempty"`
	Window   int64             `json:"window,omitempty"`
	Turn     string            `json:"turn,omitempty"`
	Open     bool              `json:"open,omitempty"`
	Newer    bool              `json:"newer,omitempty"`
	Prompted bool              `json:"prompted,omitempty"`
	Compact  bool              `json:"compact,omitempty"`
	Tools    map[string]string `json:"tools,omitempty"`
	Total    int64             `json:"total,omitempty"`
	Records  bool              `json:"records,omitempty"`
	Response string            `json:"response,omitempty"`
	Limits   string            `json:"limits,omitempty"`
	Last     time.Time         `json:"last"`
}

// Checkpoint saves what the parser knows (see provider.Checkpointer).
func (r *Rollout) Checkpoint() ([]byte, error) {
	if len(r.held) > 0 {
		return nil, errors.New("codex: checkpoint with a turn.start held (Drain first)")
	}
	return json.Marshal(checkpoint{V: 1, Session: r.session, Cwd: r.cwd, Branch: r.branch, MetaOK: r.metaOK,
		Skip: r.skip, Model: r.model, Window: r.window, Turn: r.turn, Open: r.open, Newer: r.newer,
		Prompted: r.prompted, Compact: r.compact, Tools: r.tools, Total: r.total, Records: r.records,
		Response: r.response, Limits: r.limits, Last: r.last})
}

// Restore takes a Checkpoint back into a fresh parser.
func (r *Rollout) Restore(b []byte) error {
	var c checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	if c.V != 1 {
		return errors.New("codex: unknown checkpoint version")
	}
	*r = Rollout{path: r.path, session: c.Session, cwd: c.Cwd, branch: c.Branch, metaOK: c.MetaOK,
		skip: c.Skip, model: c.Model, window: c.Window, turn: c.Turn, open: c.Open, newer: c.Newer,
		prompted: c.Prompted, compact: c.Compact, tools: c.Tools, total: c.Total, records: c.Records,
		response: c.Response, limits: c.Limits, last: c.Last}
	if r.tools == nil {
		r.tools = map[string]string{}
	}
	return nil
}
