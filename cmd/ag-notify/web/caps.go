package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"
)

// A capability is one button of one push notification, as a URL anyone
// holding it may POST to once: which session, the state's token it was
// offered under, which button, until when, and a nonce — signed with the
// server's key. It is good while the session still waits under that token
// (it expires with the wait), never past its time, and once.
type capability struct {
	Session string `json:"s"` // session id
	Token   string `json:"t"`
	Button  string `json:"b"`
	Expires int64  `json:"e"` // unix seconds
	Nonce   string `json:"n"`
}

// capTTL bounds a capability's life even while its wait stays up.
const capTTL = 12 * time.Hour

// capMark names the scheme in the MAC: a capability is never a CSRF token.
const capMark = "ag-cap-v1"

type caps struct {
	key []byte
	now func() time.Time

	mu   sync.Mutex
	used map[string]int64 // nonce → expiry, forgotten once expired
}

func newCaps(key []byte, now func() time.Time) *caps {
	return &caps{key: key, now: now, used: map[string]int64{}}
}

func (c *caps) mac(payload string) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(capMark + "\x00" + payload))
	return m.Sum(nil)
}

// mint makes the capability for one button.
func (c *caps) mint(session, tok, button string) string {
	b, _ := json.Marshal(capability{Session: session, Token: tok, Button: button,
		Expires: c.now().Add(capTTL).Unix(), Nonce: token(12)})
	p := base64.RawURLEncoding.EncodeToString(b)
	return p + "." + base64.RawURLEncoding.EncodeToString(c.mac(p))
}

// Errors of redeem, each what the phone's request is answered.
var (
	errForged  = errors.New("not a capability of this ag-notify")
	errExpired = errors.New("this button has expired")
	errUsed    = errors.New("this button was pressed already")
)

// redeem checks a capability and uses it up.
func (c *caps) redeem(raw string) (capability, error) {
	var cp capability
	p, sig, ok := strings.Cut(raw, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, c.mac(p)) {
		return cp, errForged
	}
	b, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil || json.Unmarshal(b, &cp) != nil || cp.Nonce == "" {
		return cp, errForged
	}
	now := c.now().Unix()
	if now >= cp.Expires {
		return cp, errExpired
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for n, exp := range c.used {
		if now >= exp {
			delete(c.used, n)
		}
	}
	if _, ok := c.used[cp.Nonce]; ok {
		return cp, errUsed
	}
	c.used[cp.Nonce] = cp.Expires
	return cp, nil
}
