package sign

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

func action() *event.Event {
	e := event.New(event.Action, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), "claude", "s1")
	e.Src, e.Host, e.Pane, e.Action, e.Token, e.ID = event.SrcNotify, "devbox", "%3", "approve", "1.2", "abc"
	return &e
}

func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "key")
	if err := Generate(p); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if err := Generate(p); err == nil {
		t.Error("Generate wrote over an existing key")
	}
	k, err := Load(p)
	if err != nil || len(k) != KeyBytes {
		t.Fatalf("Load: %v (%d bytes)", err, len(k))
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o660} {
		os.Chmod(p, mode)
		if _, err := Load(p); err == nil {
			t.Errorf("a key file with mode %04o was taken", mode)
		}
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("not hex\n"), 0o600)
	if _, err := Load(bad); err == nil {
		t.Error("a file that is not a key was taken")
	}
	if _, err := Load(dir); err == nil {
		t.Error("a directory was taken")
	}
}

func TestSignCheck(t *testing.T) {
	k, other := Key("0123456789abcdef0123456789abcdef"), Key("fedcba9876543210fedcba9876543210")
	e := action()
	if err := k.Check(e); !errors.Is(err, ErrUnsigned) {
		t.Errorf("unsigned: %v", err)
	}
	k.Sign(e)
	if err := k.Check(e); err != nil {
		t.Fatalf("signed: %v", err)
	}
	if err := other.Check(e); !errors.Is(err, ErrBadSig) {
		t.Errorf("another key: %v", err)
	}
	for name, alter := range map[string]func(*event.Event){
		"host":    func(e *event.Event) { e.Host = "laptop" },
		"pane":    func(e *event.Event) { e.Pane = "%4" },
		"action":  func(e *event.Event) { e.Action = "deny" },
		"text":    func(e *event.Event) { e.Text = "rm -rf /" },
		"token":   func(e *event.Event) { e.Token = "1.3" },
		"time":    func(e *event.Event) { e.T = event.At(e.T.Add(time.Minute)) },
		"id":      func(e *event.Event) { e.ID = "abd" },
		"session": func(e *event.Event) { e.Session = "s2" },
		"agent":   func(e *event.Event) { e.Agent = "codex" },
		"kind":    func(e *event.Event) { e.Kind = event.Keys },
		"sig":     func(e *event.Event) { e.Sig = e.Sig[:len(e.Sig)-2] + "AA" },
		"scheme":  func(e *event.Event) { e.Sig = "v2" + e.Sig[2:] },
		"prefix shift": func(e *event.Event) {
			e.Pane, e.Action = "%3a", "pprove" // the same bytes, cut elsewhere
		},
	} {
		c := *e
		alter(&c)
		if err := k.Check(&c); !errors.Is(err, ErrBadSig) {
			t.Errorf("altered %s: %v", name, err)
		}
	}
}

// FuzzCheck: whatever a broker carries, checking it never panics, and
// only the line the key signed passes.
func FuzzCheck(f *testing.F) {
	k := Key("0123456789abcdef0123456789abcdef")
	e := action()
	k.Sign(e)
	f.Add(string(event.Marshal(e)))
	f.Add(`{"v":1,"t":"2026-11-30T12:00:00.000Z","kind":"action","session":"s","sig":"v1:"}`)
	f.Add(`{"v":1,"t":"2026-11-30T12:00:00.000Z","kind":"action","session":"s","sig":"v1:!!!"}`)
	signed := string(event.Marshal(e))
	f.Fuzz(func(t *testing.T, line string) {
		var x event.Event
		if event.Decode([]byte(line), &x) != nil {
			return
		}
		if k.Check(&x) == nil {
			// It passed: it must say what the signed event said.
			if got := string(message(&x)); got != string(message(e)) {
				t.Fatalf("a different action passed: %q (signed: %s)", line, signed)
			}
		}
	})
}
