package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agwatch/ag/filters/replace"
	"github.com/fsnotify/fsnotify"
)

// Files in the state directory.
const (
	keyFile     = "web.key"          // the server's HMAC key (CSRF tokens, capabilities)
	devicesFile = "web-devices.json" // the paired browsers
)

// Device is one paired browser. Only a hash of its cookie is kept: the
// file alone lets no one in.
type Device struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Hash    string    `json:"hash"` // hex SHA-256 of the cookie's secret
	Paired  time.Time `json:"paired"`
	Expires time.Time `json:"expires"`
}

// auth is pairing, the devices file and the server's key.
type auth struct {
	dir    string
	expire time.Duration
	now    func() time.Time
	key    []byte
	w      *fsnotify.Watcher

	mu      sync.Mutex
	devices []Device
	codes   map[string]time.Time // one-time pairing codes → expiry (zero: until used)
	stamp   string               // the devices file as last read (size and time)
	limits  map[string]*bucket   // per device, and "pair" for pairing
}

func newAuth(dir string, expire time.Duration, now func() time.Time) (*auth, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	a := &auth{dir: dir, expire: expire, now: now, codes: map[string]time.Time{}, limits: map[string]*bucket{}}
	var err error
	if a.key, err = loadKey(filepath.Join(dir, keyFile)); err != nil {
		return nil, err
	}
	a.load()
	return a, nil
}

// loadKey reads the server's key, making it on first use (0600).
func loadKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("%s is open to group or others: chmod 600 %s", path, path)
		}
		k, err := hex.DecodeString(strings.TrimSpace(string(b)))
		if err != nil || len(k) < 32 {
			return nil, fmt.Errorf("%s: not a key (delete it to make a new one; every paired browser then pairs again)", path)
		}
		return k, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	k := random(32)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	_, err = f.WriteString(hex.EncodeToString(k) + "\n")
	return k, err
}

func random(n int) []byte {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return b
}

func token(n int) string { return base64.RawURLEncoding.EncodeToString(random(n)) }

func hash(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// mac is the key's HMAC-SHA256 of the parts, each named by its purpose.
func (a *auth) mac(parts ...string) []byte {
	m := hmac.New(sha256.New, a.key)
	for _, p := range parts {
		fmt.Fprintf(m, "%d:%s", len(p), p)
	}
	return m.Sum(nil)
}

// csrf is the device's CSRF token: bound to it, made by the server's key.
func (a *auth) csrf(device string) string {
	return base64.RawURLEncoding.EncodeToString(a.mac("csrf", device))
}

func (a *auth) csrfOK(device, got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(a.csrf(device))) == 1
}

// newCode makes a one-time pairing code.
func (a *auth) newCode(ttl time.Duration) string {
	c := token(32)
	a.mu.Lock()
	defer a.mu.Unlock()
	var exp time.Time
	if ttl > 0 {
		exp = a.now().Add(ttl)
	}
	a.codes[hash(c)] = exp
	return c
}

// pair trades a code for a new device and the secret its cookie holds.
func (a *auth) pair(code, name string) (Device, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := hash(code)
	exp, ok := a.codes[h]
	if !ok {
		return Device{}, "", errors.New("this pairing link was used already, or never made here")
	}
	delete(a.codes, h)
	if !exp.IsZero() && a.now().After(exp) {
		return Device{}, "", errors.New("this pairing link has expired")
	}
	secret := token(32)
	now := a.now()
	d := Device{ID: hex.EncodeToString(random(6)), Name: name, Hash: hash(secret), Paired: now.UTC(), Expires: now.Add(a.expire).UTC()}
	a.reload()
	a.devices = append(a.devices, d)
	if err := a.save(); err != nil {
		return Device{}, "", err
	}
	return d, secret, nil
}

// device is the paired device a cookie's secret belongs to.
func (a *auth) device(secret string) (Device, bool) {
	if secret == "" {
		return Device{}, false
	}
	h := hash(secret)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reload()
	now := a.now()
	for _, d := range a.devices {
		if subtle.ConstantTimeCompare([]byte(d.Hash), []byte(h)) == 1 && now.Before(d.Expires) {
			return d, true
		}
	}
	return Device{}, false
}

// known reports whether device id is still paired.
func (a *auth) known(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	return slices.ContainsFunc(a.devices, func(d Device) bool { return d.ID == id && now.Before(d.Expires) })
}

// list is the paired devices, newest first, without their hashes.
func (a *auth) list() []Device {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reload()
	out := slices.Clone(a.devices)
	for i := range out {
		out[i].Hash = ""
	}
	slices.Reverse(out)
	return out
}

// revoke removes a device ("all": every one) from the file.
func (a *auth) revoke(id string) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reload()
	n := len(a.devices)
	a.devices = slices.DeleteFunc(a.devices, func(d Device) bool { return id == "all" || d.ID == id })
	if len(a.devices) == n {
		return 0, nil
	}
	return n - len(a.devices), a.save()
}

// Revoke cuts off a paired browser (id, or "all") in the devices file of
// dir, for `ag-notify --web-revoke`; a running ag-notify sees the file
// change and ends that browser's page at once.
func Revoke(dir, id string) (int, error) {
	a := &auth{dir: dir, now: time.Now}
	a.load()
	return a.revoke(id)
}

// Devices lists the paired browsers in dir's devices file.
func Devices(dir string) []Device {
	a := &auth{dir: dir, now: time.Now}
	a.load()
	return a.list()
}

func (a *auth) path() string { return filepath.Join(a.dir, devicesFile) }

// load reads the devices file (with a.mu held, or before any sharing).
func (a *auth) load() {
	a.devices = nil
	b, err := os.ReadFile(a.path())
	if err != nil {
		return
	}
	json.Unmarshal(b, &a.devices)
	a.stamp = stamp(a.path())
}

// reload reads the file again when another process (--web-revoke)
// changed it.
func (a *auth) reload() {
	if stamp(a.path()) != a.stamp {
		a.load()
	}
}

func stamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
}

// save writes the devices file atomically (0600), dropping expired ones.
func (a *auth) save() error {
	now := a.now()
	a.devices = slices.DeleteFunc(a.devices, func(d Device) bool { return !now.Before(d.Expires) })
	b, err := json.MarshalIndent(a.devices, "", " ")
	if err != nil {
		return err
	}
	if err := replace.File(a.path(), append(b, '\n')); err != nil {
		return err
	}
	os.Chmod(a.path(), 0o600)
	a.stamp = stamp(a.path())
	return nil
}

// watch calls changed whenever the devices file changes, until close.
// The watcher is made before watch returns (close must find it); the
// events are read in a goroutine that done waits for.
func (a *auth) watch(changed func(), done *sync.WaitGroup) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return
	}
	if err := w.Add(a.dir); err != nil {
		w.Close()
		return
	}
	a.mu.Lock()
	a.w = w
	a.mu.Unlock()
	done.Add(1)
	go func() {
		defer done.Done()
		for ev := range w.Events {
			if filepath.Base(ev.Name) != devicesFile {
				continue
			}
			a.mu.Lock()
			a.reload()
			a.mu.Unlock()
			changed()
		}
	}()
}

func (a *auth) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.w != nil {
		a.w.Close()
	}
}

// allow takes one token from the bucket named; false: over the limit.
func (a *auth) allow(name string, burst, perMinute float64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.limits[name]
	now := a.now()
	if b == nil {
		b = &bucket{left: burst, at: now}
		a.limits[name] = b
	}
	b.left = min(burst, b.left+now.Sub(b.at).Minutes()*perMinute)
	b.at = now
	if b.left < 1 {
		return false
	}
	b.left--
	return true
}

// bucket is a token bucket.
type bucket struct {
	left float64
	at   time.Time
}
