package crush

import (
	"maps"

	"github.com/agwatch/ag/providers/internal/ckpt"
)

// checkpointKeep bounds the messages a checkpoint keeps: the newest, of
// which a later read may still find more (a tool call, a finish); a
// session's older ones are behind its Since.
const checkpointKeep = 64

const checkpointV = 1

type checkpoint struct {
	Sess map[string]*sessSeen `json:"sess"`
	Msgs []keptMsg            `json:"msgs,omitempty"`
}

type keptMsg struct {
	ID string `json:"id"`
	msgSeen
}

// Checkpoint saves what the reader knows (provider.Checkpointer).
func (s *Store) Checkpoint() ([]byte, error) {
	cp := checkpoint{Sess: s.sess}
	for _, id := range s.order[max(0, len(s.order)-checkpointKeep):] {
		cp.Msgs = append(cp.Msgs, keptMsg{id, *s.msgs[id]})
	}
	return ckpt.Encode(checkpointV, cp)
}

// Restore puts a fresh reader where Checkpoint left one.
func (s *Store) Restore(state []byte) error {
	var cp checkpoint
	if err := ckpt.Decode(state, checkpointV, &cp); err != nil {
		return err
	}
	s.sess, s.msgs, s.order = map[string]*sessSeen{}, map[string]*msgSeen{}, nil
	maps.Copy(s.sess, cp.Sess)
	for _, m := range cp.Msgs {
		ms := m.msgSeen
		s.msgs[m.ID] = &ms
		s.order = append(s.order, m.ID)
	}
	return nil
}
