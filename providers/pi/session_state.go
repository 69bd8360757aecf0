package pi

import (
	"errors"

	"github.com/agwatch/ag/providers/internal/ckpt"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Checkpointer = (*Session)(nil)

// sessionState is what a Session knows between lines, for
// provider.Checkpointer: the session its header named and the cost summed
// so far. Entries never repeat and a meter needs no other line, so that is
// all (the windows are models.json's, read again).
type sessionState struct {
	Session string  `json:"session,omitempty"`
	Cost    float64 `json:"cost,omitempty"`
}

const sessionStateV = 1

// Checkpoint saves what the parser knows (provider.Checkpointer).
func (s *Session) Checkpoint() ([]byte, error) {
	return ckpt.Encode(sessionStateV, sessionState{s.session, s.cost})
}

// Restore takes a Checkpoint back into a fresh parser.
func (s *Session) Restore(b []byte) error {
	var st sessionState
	if err := ckpt.Decode(b, sessionStateV, &st); err != nil {
		return err
	}
	if st.Cost < 0 {
		return errors.New("pi: checkpoint with a negative cost")
	}
	s.session, s.cost = st.Session, st.Cost
	return nil
}
