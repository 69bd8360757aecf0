package auggie

import (
	"maps"

	"github.com/agwatch/ag/providers/internal/ckpt"
)

// checkpointKeep is how many of the newest exchanges a checkpoint keeps:
// those a rewrite may still add to (an exchange rewritten with its
// result). Older ones were all emitted.
const checkpointKeep = 32

const checkpointV = 1

// checkpoint is what a session parser knows between reads.
type checkpoint struct {
	Session string            `json:"session"`
	Model   string            `json:"model,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Open    bool              `json:"open,omitempty"`
	Pending map[string]string `json:"pending,omitempty"`
	Cost    float64           `json:"cost,omitempty"`
	Costs   bool              `json:"costs,omitempty"`
	Floor   int               `json:"floor"` // exchanges before the kept ones
	Ex      []keptEx          `json:"ex,omitempty"`
}

type keptEx struct {
	ID string `json:"id"`
	exSeen
}

// Checkpoint saves what the parser knows (provider.Checkpointer).
func (s *Session) Checkpoint() ([]byte, error) {
	keep := s.order[max(0, len(s.order)-checkpointKeep):]
	cp := checkpoint{Session: s.session, Model: s.model, Cwd: s.cwd, Open: s.open, Pending: s.pending,
		Cost: s.cost, Costs: s.costs, Floor: s.floor + len(s.order) - len(keep)}
	for _, id := range keep {
		cp.Ex = append(cp.Ex, keptEx{id, *s.seen[id]})
	}
	return ckpt.Encode(checkpointV, cp)
}

// Restore puts a fresh parser where Checkpoint left one (provider.Checkpointer).
func (s *Session) Restore(state []byte) error {
	var cp checkpoint
	if err := ckpt.Decode(state, checkpointV, &cp); err != nil {
		return err
	}
	s.Reset()
	s.session, s.model, s.cwd, s.open, s.cost, s.costs, s.floor = cp.Session, cp.Model, cp.Cwd, cp.Open, cp.Cost, cp.Costs, cp.Floor
	maps.Copy(s.pending, cp.Pending)
	for _, k := range cp.Ex {
		ms := k.exSeen
		s.seen[k.ID] = &ms
		s.order = append(s.order, k.ID)
	}
	return nil
}
