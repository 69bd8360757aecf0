package main

import (
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/safetext/safetexttest"
)

// hostileState is a wait whose every field an agent, its model or a
// publisher wrote: the session holds a NUL, the rest hostile text.
func hostileState(i int, s string) event.Event {
	e := state("s\x00"+strconv.Itoa(i), "waiting", "permission", "1."+strconv.Itoa(i))
	e.Agent, e.Tool, e.Text, e.Cwd, e.Branch, e.Prompt, e.Model = s, s, s, "/src/"+s, s, s, s
	if i%2 == 1 { // a question, its options buttons
		e.Agent, e.Attention, e.Options = "claude", "question", []string{s, "ok " + s}
	}
	return e
}

// TestHostileNotes: hostile text through every backend — D-Bus (a server
// that reads markup), exec (its environment and stdin), OSC (the bytes
// the terminal gets) and ntfy (the request) — comes out with no escape,
// control or bidi character, no markup a server would read, and a session
// id with a NUL still runs the exec command.
func TestHostileNotes(t *testing.T) {
	b := startBus(t, "actions,body,body-markup")
	s := newNtfyServer(t)
	dir := t.TempDir()
	tty := filepath.Join(dir, "tty")
	if err := os.WriteFile(tty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	script := `cat >> ` + dir + `/json; env | grep '^AG_' >> ` + dir + `/env`
	p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr},
		"--backend", "dbus", "--backend", "osc", "--osc-tty", tty, "--exec", script, "--ntfy", s.URL+"/t",
		"-S", shortDir(t)+"/no-tmux")
	for i, h := range safetexttest.Hostile {
		p.send(hostileState(i, h))
	}
	delivered := map[string]int{}
	for range 4 * len(safetexttest.Hostile) {
		e := p.next(event.Notify)
		delivered[e.Backend]++
	}
	if code, _ := p.stop(); code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, p.stderr)
	}
	for _, be := range []string{"dbus", "osc", "exec", "ntfy"} {
		if delivered[be] != len(safetexttest.Hostile) {
			t.Errorf("%s delivered %d of %d; stderr:\n%s", be, delivered[be], len(safetexttest.Hostile), p.stderr)
		}
	}
	check := func(where, s string, lines bool) {
		t.Helper()
		if i, c := safetexttest.Find(s, lines); i >= 0 {
			t.Errorf("%s: %s at byte %d of %q", where, c, i, s)
		}
	}
	for _, c := range b.calls(t) {
		check("D-Bus summary", c.Summary, false)
		check("D-Bus body", c.Body, true)
		for _, a := range c.Actions {
			check("D-Bus action", a, false)
		}
		if strings.ContainsAny(c.Summary+c.Body, "<>") {
			t.Errorf("D-Bus: markup the server would read: summary %q, body %q", c.Summary, c.Body)
		}
	}
	env, _ := os.ReadFile(dir + "/env")
	check("exec environment", string(env), true)
	jsonLines, _ := os.ReadFile(dir + "/json")
	for _, l := range strings.Split(strings.TrimSpace(string(jsonLines)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("exec stdin %q: %v", l, err)
		}
		for k, v := range m {
			if s, ok := v.(string); ok && k != "session" && k != "token" {
				check("exec stdin ."+k, s, k == "body")
			}
		}
	}
	seq, _ := os.ReadFile(tty)
	for _, one := range strings.SplitAfter(string(seq), "\a") {
		if one == "" {
			continue
		}
		text, ok := strings.CutPrefix(one, "\x1b]9;")
		if !ok || !strings.HasSuffix(text, "\a") {
			t.Errorf("OSC: not one OSC 9 sequence: %q", one)
			continue
		}
		check("OSC 9 text", strings.TrimSuffix(text, "\a"), false)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	dec := new(mime.WordDecoder)
	for _, r := range s.reqs {
		title, err := dec.DecodeHeader(r.title)
		if err != nil {
			t.Errorf("ntfy title %q: %v", r.title, err)
		}
		check("ntfy title", title, false)
		check("ntfy body", r.body, true)
		tags, _ := dec.DecodeHeader(r.tags)
		check("ntfy tags", tags, false)
	}
}

// TestBusyOnceAndFair: a backend that cannot keep up (a command that takes
// 100 ms) with a flood of waits says so once, not once per notification
// (14,659 lines in issue 28), and another host's wait, sent after the
// flood, is delivered after one of the flood's, not after all it queued.
// (This host's sessions flood here: another host's notifications are
// bounded before they reach a backend, TestHostBudget.)
func TestBusyOnceAndFair(t *testing.T) {
	dir := t.TempDir()
	p := start(t, nil, "--exec", `sed -n 's/.*"session":"\([^"]*\)".*/\1/p' >> `+dir+`/order; sleep 0.1`, "-S", shortDir(t)+"/no-tmux")
	for i := range 200 {
		p.send(state(fmt.Sprint("f", i), "waiting", "permission", fmt.Sprint("1.", i)))
	}
	genuine := state("real", "waiting", "permission", "2.1")
	genuine.Host = "devbox"
	p.send(genuine)
	waitFor(t, 10*time.Second, "devbox's wait delivered", func() bool {
		b, _ := os.ReadFile(dir + "/order")
		return strings.Contains(string(b), "real\n")
	})
	b, _ := os.ReadFile(dir + "/order")
	before := strings.Count(strings.Split(string(b), "real\n")[0], "\n")
	p.stop()
	if before > 2 {
		t.Errorf("devbox's wait came after %d of the flood's deliveries; want at most 2", before)
	}
	if n := strings.Count(p.stderr.String(), "busy"); n != 1 {
		t.Errorf("%d busy lines; want 1:\n%s", n, p.stderr)
	}
}
