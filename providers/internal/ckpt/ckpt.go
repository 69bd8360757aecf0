// Package ckpt is the envelope of the providers' checkpoints
// (provider.Checkpointer): {"v":<version>,"s":<the parser's state>}, so
// a parser says only what it knows, and bytes of another version or of no
// checkpoint at all are refused before any of the state is read.
package ckpt

import (
	"encoding/json"
	"fmt"
)

type envelope struct {
	V int             `json:"v"`
	S json.RawMessage `json:"s"`
}

// Encode is state (anything encoding/json writes) as checkpoint version v.
func Encode(v int, state any) ([]byte, error) {
	s, err := json.Marshal(state)
	if err != nil {
		return nil, err
	}
	return json.Marshal(envelope{v, s})
}

// Decode reads a checkpoint of version v into state (a pointer); any
// other version, or bytes with no state, is an error.
func Decode(b []byte, v int, state any) error {
	var e envelope
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	if e.V != v {
		return fmt.Errorf("checkpoint version %d, not %d", e.V, v)
	}
	if len(e.S) == 0 || string(e.S) == "null" {
		return fmt.Errorf("checkpoint version %d holds no state", v)
	}
	return json.Unmarshal(e.S, state)
}
