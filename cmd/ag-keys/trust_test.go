package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/sign"
)

// TestHostsAndSignatures runs ag-keys as a filter against a real pane: it
// types only what is meant for its host, each action once (a QoS 1
// duplicate, a replay after a restart), and under --verify only what the
// key signed, recently, unaltered.
func TestHostsAndSignatures(t *testing.T) {
	t.Setenv("AG_HOST", "hostb")
	s := newServer(t)
	a := s.agent()
	dir := t.TempDir()
	st := stateFor(a.pane, "waiting", "permission")
	st.Host = "hostb"
	other := st
	other.Host, other.Session = "hosta", "sess-a" // a merged file: another host's %N
	path := writeState(t, dir, other, st)
	keyFile := filepath.Join(dir, "key")
	if code, _, stderr := s.runKeys(path, "", "keygen", keyFile); code != 0 {
		t.Fatalf("keygen: %d %s", code, stderr)
	}
	key, err := sign.Load(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	action := func(host string, signed bool, age time.Duration, id string) string {
		e := event.New(event.Action, time.Now().Add(-age), "claude", "sess-1")
		e.Src, e.Host, e.Pane, e.Action, e.Token, e.ID = event.SrcNotify, host, a.pane, "approve", st.Token, id
		if signed {
			key.Sign(&e)
		}
		return string(event.Marshal(&e))
	}
	tampered := func() string {
		var e event.Event
		event.Decode([]byte(strings.TrimSpace(action("hostb", true, 0, "t1"))), &e)
		e.Action = "deny"
		return string(event.Marshal(&e))
	}
	wrongKey := func() string {
		var e event.Event
		event.Decode([]byte(strings.TrimSpace(action("hostb", false, 0, "w1"))), &e)
		sign.Key("0123456789abcdef0123456789abcdef").Sign(&e)
		return string(event.Marshal(&e))
	}
	reasons := func(events []event.Event) string {
		var b []string
		for _, e := range events {
			b = append(b, e.Status+": "+e.Reason)
		}
		return strings.Join(b, "\n")
	}

	t.Run("verify refuses what the key did not sign", func(t *testing.T) {
		in := action("hostb", false, 0, "u1") + wrongKey() + tampered() +
			action("hostb", true, 2*time.Minute, "o1") + action("hostb", true, -2*time.Minute, "f1") +
			action("hosta", true, 0, "a1") // another host's: not a word
		code, events, stderr := s.with(t).runKeys(path, in, "--verify", keyFile)
		want := "refused: unsigned action\n" +
			"refused: bad signature (another key, or the action was altered)\n" +
			"refused: bad signature (another key, or the action was altered)\n"
		got := reasons(events)
		if code != 0 || !strings.HasPrefix(got, want) || len(events) != 5 ||
			!strings.Contains(events[3].Reason, "old (--window 1m0s)") || !strings.Contains(events[4].Reason, "ahead") {
			t.Fatalf("code %d, stderr %q, events:\n%s", code, stderr, got)
		}
		if typed(a.reads(t, 0)) != "" {
			t.Fatalf("typed %q", typed(a.parse(t)))
		}
	})
	t.Run("a signed action types once, also after a restart", func(t *testing.T) {
		one := action("hostb", true, 0, "ok1")
		code, events, stderr := s.with(t).runKeys(path, one+one, "--verify", keyFile)
		if code != 0 || len(events) != 2 || events[0].Status != "sent" || !strings.Contains(events[1].Reason, "already performed") {
			t.Fatalf("code %d, stderr %q, events:\n%s", code, stderr, reasons(events))
		}
		if got := typed(a.reads(t, 1)); got != "1" {
			t.Fatalf("typed %q, want 1", got)
		}
		_, events, _ = s.with(t).runKeys(path, one, "--verify", keyFile)
		if len(events) != 1 || !strings.Contains(events[0].Reason, "already performed") {
			t.Fatalf("after a restart: %s", reasons(events))
		}
		if got := typed(a.reads(t, 1)); got != "1" {
			t.Fatalf("typed %q after the replay, want 1 once", got)
		}
	})
	t.Run("argv mode under verify is refused", func(t *testing.T) {
		code, events, _ := s.with(t).runKeys(path, "", "--verify", keyFile, "approve", "--pane", a.pane)
		if code != 1 || len(events) != 1 || !strings.Contains(events[0].Reason, "signature") {
			t.Fatalf("code %d: %s", code, reasons(events))
		}
	})
	t.Run("a key open to others is refused", func(t *testing.T) {
		os.Chmod(keyFile, 0o640)
		defer os.Chmod(keyFile, 0o600)
		code, events, stderr := s.with(t).runKeys(path, action("hostb", true, 0, "m1"), "--verify", keyFile)
		if code != 2 || len(events) != 0 || !strings.Contains(stderr, "chmod 600") {
			t.Fatalf("code %d, stderr %q, %s", code, stderr, reasons(events))
		}
	})
	t.Run("without verify: only this host's, each once", func(t *testing.T) {
		st.Token = "1764470000000.5" // a new wait, the same pane
		path = writeState(t, dir, other, st)
		one := action("hostb", false, 0, "plain1")
		in := action("hosta", false, 0, "plain0") + one + one
		code, events, stderr := s.with(t).runKeys(path, in)
		if code != 0 || len(events) != 2 || events[0].Status != "sent" || events[0].Session != "sess-1" || events[1].Status != "refused" {
			t.Fatalf("code %d, stderr %q, events:\n%s", code, stderr, reasons(events))
		}
		if got := typed(a.reads(t, 2)); got != "1|1" {
			t.Fatalf("typed %q, want a second 1", got)
		}
	})
}

func TestSignStream(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := sign.Generate(keyFile); err != nil {
		t.Fatal(err)
	}
	key, _ := sign.Load(keyFile)
	in := `{"v":1,"t":"2026-11-30T12:00:00.000Z","kind":"state","session":"s"}
{"v":1,"t":"2026-11-30T12:00:00.000Z","kind":"action","agent":"claude","session":"s","pane":"%3","action":"approve","token":"1.2"}
{"v":1,"t":"2026-11-30T12:00:01.000Z","kind":"action","agent":"claude","session":"s","host":"gpu","pane":"%3","action":"deny","token":"1.2"}
`
	for _, tc := range []struct {
		args  []string
		n     int
		code  int
		hosts string
	}{
		{[]string{"sign", keyFile}, 2, 2, "gpu"},
		{[]string{"--host", "devbox", "sign", keyFile}, 3, 0, "devbox gpu"},
	} {
		var out, errb strings.Builder
		code := run(t.Context(), tc.args, strings.NewReader(in), &out, &errb)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if code != tc.code || len(lines) != tc.n {
			t.Fatalf("%v: code %d, stderr %q, out:\n%s", tc.args, code, errb.String(), out.String())
		}
		var hosts []string
		for _, l := range lines[1:] {
			var e event.Event
			if err := event.Decode([]byte(l), &e); err != nil {
				t.Fatal(err)
			}
			if err := key.Check(&e); err != nil || e.ID == "" {
				t.Errorf("%s: %v", l, err)
			}
			hosts = append(hosts, e.Host)
		}
		if got := strings.Join(hosts, " "); got != tc.hosts {
			t.Errorf("%v: hosts %q, want %q", tc.args, got, tc.hosts)
		}
	}
}
