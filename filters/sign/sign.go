// Package sign proves that an action event came from the user's own
// front-end. An action that crossed a network (an MQTT broker anyone may
// publish to, a phone relay) types into a pane only when it carries an
// HMAC-SHA256, made with a key only the user's machines hold, over what
// it asks for: kind, agent, session, host, pane, action, text, token, its
// time and id. Changing any of them breaks the signature; the time bounds
// how long a captured action could be replayed, and the receiver
// remembers the signatures it obeyed.
package sign

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/regfile"
)

// Key is the shared secret.
type Key []byte

// KeyBytes is how much randomness Generate writes.
const KeyBytes = 32

// prefix names the scheme, so a signature made for one thing is never
// valid for another.
const prefix = "v1:"

// Generate writes a new random key to path (0600), never over a file.
func Generate(path string) error {
	k := make([]byte, KeyBytes)
	if _, err := rand.Read(k); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(hex.EncodeToString(k) + "\n"); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// Load reads a key file. A file that group or others may read or write is
// refused: anyone who can read it can sign.
func Load(path string) (Key, error) {
	// Not os.Open: a FIFO named as the key would hold the program in
	// open(2), deaf to SIGTERM.
	f, fi, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: key file is open to group or others (mode %04o): chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	b := make([]byte, 4096)
	n, err := f.Read(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(b[:n])))
	if err != nil || len(k) < 16 {
		return nil, fmt.Errorf("%s: not a key (want the hex of at least 16 bytes, as ag-keys keygen writes)", path)
	}
	return Key(k), nil
}

// message is what the signature covers, each part length-prefixed so no
// two events share one.
func message(e *event.Event) []byte {
	b := []byte("ag-action\x00")
	for _, s := range [...]string{e.Kind, e.Agent, e.Session, e.Host, e.Pane, e.Action, e.Text, e.Token, e.T.String(), e.ID} {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	return b
}

func (k Key) mac(e *event.Event) []byte {
	m := hmac.New(sha256.New, k)
	m.Write(message(e))
	return m.Sum(nil)
}

// Sign sets e's signature.
func (k Key) Sign(e *event.Event) {
	e.Sig = prefix + base64.RawURLEncoding.EncodeToString(k.mac(e))
}

// Errors of Check.
var (
	ErrUnsigned = errors.New("unsigned action")
	ErrBadSig   = errors.New("bad signature (another key, or the action was altered)")
)

// Check reports whether e's signature is k's over e as it is.
func (k Key) Check(e *event.Event) error {
	if e.Sig == "" {
		return ErrUnsigned
	}
	raw, ok := strings.CutPrefix(e.Sig, prefix)
	if !ok {
		return ErrBadSig
	}
	got, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil || !hmac.Equal(got, k.mac(e)) {
		return ErrBadSig
	}
	return nil
}
