package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/shquote"
	"github.com/agwatch/ag/filters/state"
)

// The test binary doubles as the fake agent: with AG_KEYS_FAKE_AGENT set it
// puts its terminal in raw mode and logs every read from it, with the time,
// so a test sees exactly which bytes ag-keys typed and when.
func TestMain(m *testing.M) {
	if log := os.Getenv("AG_KEYS_FAKE_AGENT"); log != "" {
		fakeAgent(log)
		return
	}
	os.Exit(m.Run())
}

func fakeAgent(log string) {
	if screen := os.Getenv("AG_KEYS_FAKE_SCREEN"); screen != "" {
		os.Stdout.WriteString(screen) // what the agent shows, before raw mode
	}
	stty := exec.Command("stty", "raw", "-echo")
	stty.Stdin = os.Stdin
	if err := stty.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "stty:", err)
		os.Exit(2)
	}
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		os.Exit(2)
	}
	fmt.Fprintln(f, "ready")
	var c interface{ read([]byte) }
	if n, err := strconv.Atoi(os.Getenv("AG_KEYS_FAKE_COMPOSER")); err == nil {
		cm := &composer{drop: n}
		cm.draw()
		c = cm
	}
	if ms, err := strconv.Atoi(os.Getenv("AG_KEYS_FAKE_DIALOG")); err == nil {
		d := &dialog{lag: time.Duration(ms) * time.Millisecond}
		d.draw("")
		c = d
	}
	if ms, err := strconv.Atoi(os.Getenv("AG_KEYS_FAKE_REJECT")); err == nil {
		r := &reject{lag: time.Duration(ms) * time.Millisecond}
		r.draw("sub-permission.txt")
		c = r
	}
	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			fmt.Fprintf(f, "%d %x\n", time.Now().UnixNano(), buf[:n])
			if c != nil {
				c.read(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}

// composer draws Gemini CLI's composer (its pane rules' idle and draft
// screens) with what was typed, and reads the first drop Enters as a
// newline, as Gemini does with an Enter its busy event loop takes within
// 30 ms of the text: the draft stays.
type composer struct {
	drop    int
	draft   string
	history []string
}

func (c *composer) read(b []byte) {
	for _, ch := range string(b) {
		switch {
		case ch == '\r' && c.drop > 0:
			c.drop--
		case ch == '\r' && strings.TrimSpace(c.draft) != "":
			c.history = append(c.history, " > "+strings.TrimSpace(c.draft), "")
			c.draft = ""
		case ch >= ' ':
			c.draft += string(ch)
		}
	}
	c.draw()
}

// dialog draws Gemini CLI's question dialog, and shows what is typed in
// its custom value (the cursor's row) lag after it came, as Gemini does
// once React has drawn twice.
type dialog struct {
	lag   time.Duration
	value string
}

func (d *dialog) read(b []byte) {
	text := strings.TrimFunc(string(b), func(r rune) bool { return r < ' ' })
	if text == "" {
		return
	}
	d.value += text
	v := d.value
	time.AfterFunc(d.lag, func() { d.draw(v) })
}

func (d *dialog) draw(value string) {
	rows := []string{" ● 1.  Blue", "       the sky", "   2.  Green", "       grass", "   3.  Enter a custom value", "", " Enter to select · ↑/↓ to navigate · Esc to cancel"}
	if value != "" {
		rows = []string{"   1.  Blue", "       the sky", "   2.  Green", "       grass", " ● 3.  " + value, "", " Enter to submit · Esc to cancel"}
	}
	lines := append([]string{" Answer Questions", "", " Which colour", ""}, rows...)
	os.Stdout.WriteString("\x1b[H\x1b[2J" + strings.Join(lines, "\r\n"))
}

// reject draws OpenCode 1.18.33's permission dialog of a sub-agent (the
// real captures in providers/opencode/testdata/screens), and lag after an
// Escape the reason dialog it opens.
type reject struct{ lag time.Duration }

func (r *reject) read(b []byte) {
	if string(b) == "\x1b" {
		time.AfterFunc(r.lag, func() { r.draw("sub-reject.txt") })
	}
}

func (r *reject) draw(screen string) {
	b, err := os.ReadFile(filepath.Join(os.Getenv("AG_KEYS_FAKE_SCREENS"), screen))
	if err != nil {
		os.Exit(2)
	}
	os.Stdout.WriteString("\x1b[H\x1b[2J" + strings.ReplaceAll(strings.TrimRight(string(b), "\n"), "\n", "\r\n"))
}

func (c *composer) draw() {
	input := " >   Type your message or @path/to/file"
	if c.draft != "" {
		input = " > " + c.draft
	}
	lines := append(append([]string{}, c.history...), strings.Repeat("─", 60), " Shift+Tab to accept edits", "", input, "",
		" workspace (/directory)    sandbox", " /tmp/p                     no sandbox")
	os.Stdout.WriteString("\x1b[H\x1b[2J" + strings.Join(lines, "\r\n"))
}

// server is a private tmux server for one test.
type server struct {
	t    *testing.T
	sock string
	dir  string
}

func newServer(t *testing.T) *server {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	if _, err := exec.LookPath("stty"); err != nil {
		t.Skip("no stty")
	}
	// A short socket path: unix sockets are limited to ~100 bytes.
	dir, err := os.MkdirTemp("", "agk")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, sock: filepath.Join(dir, "s"), dir: t.TempDir()}
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "sleep 600")
	t.Cleanup(func() {
		exec.Command("tmux", "-S", s.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	return s
}

// with is the server seen from subtest t, so its helpers fail t.
func (s *server) with(t *testing.T) *server {
	c := *s
	c.t = t
	return &c
}

func (s *server) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// window starts cmd in a new window and returns its pane once the pane's
// foreground command is fg. tmux runs cmd through its default shell, so
// fg alone can match the wrapper for a moment: callers that need the real
// program wait for a sign of it too (shellWindow, agent).
func (s *server) window(cmd, fg string) string {
	s.t.Helper()
	return s.windowIn(s.dir, nil, cmd, fg)
}

func (s *server) windowIn(dir string, env []string, cmd, fg string) string {
	s.t.Helper()
	args := []string{"new-window", "-d", "-c", dir, "-P", "-F", "#{pane_id}"}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	pane := s.tmux(append(args, cmd)...)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if s.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}") == fg {
			return pane
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("pane %s never ran %s: %s", pane, fg, s.tmux("display-message", "-p", "-t", pane, "#{pane_current_command}"))
	return ""
}

// shellWindow starts an interactive shell and waits for its prompt (the
// wrapper prints nothing, so anything on screen is the shell's).
func (s *server) shellWindow(dir string, env []string, shell, name string) string {
	s.t.Helper()
	cmd := "exec " + shell
	if len(env) > 0 {
		// tmux's -e does not reach a PATH the default shell resets.
		q := make([]string, len(env))
		for i, e := range env {
			q[i] = shquote.Quote(e)
		}
		cmd = "exec env " + strings.Join(q, " ") + " " + shell
	}
	pane := s.windowIn(dir, nil, cmd, name)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if strings.TrimSpace(s.tmux("capture-pane", "-p", "-t", pane)) != "" {
			return pane
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("shell %s in %s never prompted: %q", shell, pane, s.tmux("capture-pane", "-p", "-t", pane))
	return ""
}

// agent is a fake agent in a pane.
type agent struct {
	pane, log string
}

func (s *server) agent() agent { return s.agentShowing("") }

// composerAgent starts a fake agent that draws Gemini's composer and
// drops the first drop Enters (composer).
func (s *server) composerAgent(drop int) agent {
	s.t.Helper()
	a := s.fakeWindow("AG_KEYS_FAKE_COMPOSER=" + strconv.Itoa(drop))
	s.waitPane(a.pane, "Type your message")
	return a
}

// fakeWindow starts the fake agent in a new window, with env (NAME=value)
// beside the log it writes.
func (s *server) fakeWindow(env ...string) agent {
	s.t.Helper()
	self, err := os.Executable()
	if err != nil {
		s.t.Fatal(err)
	}
	log := filepath.Join(s.dir, fmt.Sprintf("keys-%d.log", time.Now().UnixNano()))
	vars := ""
	for _, kv := range env {
		vars += shquote.Quote(kv) + " "
	}
	pane := s.window("exec env AG_KEYS_FAKE_AGENT="+shquote.Quote(log)+" "+vars+shquote.Quote(self), filepath.Base(self))
	return agent{pane: pane, log: log}
}

// waitPane waits for the pane to show text.
func (s *server) waitPane(pane, text string) string {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := s.tmux("capture-pane", "-p", "-t", pane)
		if strings.Contains(got, text) {
			return got
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("pane %s never showed %q:\n%s", pane, text, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// agentShowing starts a fake agent whose screen shows screen.
func (s *server) agentShowing(screen string) agent {
	s.t.Helper()
	a := s.fakeWindow("AG_KEYS_FAKE_SCREEN=" + screen)
	pane, log := a.pane, a.log
	// The agent wrote its screen before it said ready, but tmux draws the
	// pane when it gets round to reading the pty: wait for the last line
	// (its longest ASCII run: without a UTF-8 locale tmux prints the rest
	// as _).
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(screen, "\r", "")), "\n")
	last := ""
	for _, f := range strings.FieldsFunc(lines[len(lines)-1], func(r rune) bool { return r > 0x7e }) {
		if f = strings.TrimSpace(f); len(f) > len(last) {
			last = f
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(log); bytes.HasPrefix(b, []byte("ready\n")) &&
			(last == "" || strings.Contains(s.tmux("capture-pane", "-p", "-t", pane), last)) {
			return agent{pane: pane, log: log}
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("fake agent never got ready; its pane shows:\n%s", s.tmux("capture-pane", "-p", "-t", pane))
	return agent{}
}

// chunk is one read the fake agent saw.
type chunk struct {
	at   time.Time
	data string
}

// reads returns what the agent read, once it has read want bytes (or 3 s
// passed), plus 200 ms for anything that should not be there.
func (a agent) reads(t *testing.T, want int) []chunk {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if n := len(strings.ReplaceAll(typed(a.parse(t)), "|", "")); n >= want {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	return a.parse(t)
}

func (a agent) parse(t *testing.T) []chunk {
	t.Helper()
	b, err := os.ReadFile(a.log)
	if err != nil {
		t.Fatal(err)
	}
	var out []chunk
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		ts, hx, _ := strings.Cut(line, " ")
		ns, err1 := strconv.ParseInt(ts, 10, 64)
		data, err2 := hex.DecodeString(hx)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad log line %q", line)
		}
		out = append(out, chunk{time.Unix(0, ns), string(data)})
	}
	return out
}

// typed joins what was read and marks where a gap of at least 50 ms came
// before a read: "\x1b|hello|\r" is Escape, a pause, hello, a pause, Enter.
// (ag-keys pauses 150 ms; tmux's delivery can eat into that under load.)
func typed(cs []chunk) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 && c.at.Sub(cs[i-1].at) >= 50*time.Millisecond {
			b.WriteByte('|')
		}
		b.WriteString(c.data)
	}
	return b.String()
}

// gapBefore is the time between the read holding the last byte before
// the first occurrence of s and the read that starts s.
func gapBefore(t *testing.T, cs []chunk, s string) time.Duration {
	for i, c := range cs {
		if i > 0 && strings.HasPrefix(c.data, s) {
			return c.at.Sub(cs[i-1].at)
		}
	}
	t.Fatalf("no read starts with %q in %q", s, typed(cs))
	return 0
}

func writeState(t *testing.T, dir string, states ...event.Event) string {
	t.Helper()
	path := filepath.Join(dir, "state.json")
	if err := state.Write(path, time.Now(), state.Self(0), states); err != nil {
		t.Fatal(err)
	}
	return path
}

func stateFor(pane, status, attn string) event.Event {
	e := event.New(event.State, time.Now(), "claude", "sess-1")
	e.Src, e.Pane, e.Status, e.Attention, e.Token = event.SrcFold, pane, status, attn, "1764470000000.4"
	return e
}

// runKeys runs ag-keys in process against the test's tmux server.
func (s *server) runKeys(stateFile, stdin string, args ...string) (code int, events []event.Event, stderr string) {
	code, events, stderr, _ = s.runKeysTraced(stateFile, stdin, args...)
	return
}

// sentStep is one step ag-keys sent, and when tmux returned from it.
type sentStep struct {
	step keyplan.Step
	at   time.Time
}

func (s *server) runKeysTraced(stateFile, stdin string, args ...string) (code int, events []event.Event, stderr string, sent []sentStep) {
	s.t.Helper()
	var out, errb bytes.Buffer
	args = append([]string{"-S", s.sock, "--state", stateFile}, args...)
	c := newCmd(&out, &errb)
	c.sent = func(st keyplan.Step, at time.Time) { sent = append(sent, sentStep{st, at}) }
	code = c.main(context.Background(), args, strings.NewReader(stdin))
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var e event.Event
		if err := event.Decode(line, &e); err != nil {
			s.t.Fatalf("bad output line %q: %v", line, err)
		}
		events = append(events, e)
	}
	return code, events, errb.String(), sent
}

func TestActionsInRealTmux(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		name, status, attn string
		args               []string
		code               int
		typed              string // as typed() shows it
		status2, reason    string
	}{
		{"approve permission", "waiting", "permission", []string{"approve"}, 0, "1", "sent", ""},
		{"deny permission", "waiting", "permission", []string{"deny"}, 0, "\x1b", "sent", ""},
		{"approve a plan wait types 2", "waiting", "plan", []string{"approve", "--token", "1764470000000.4"}, 0, "2", "sent", ""},
		{"plan-deny", "waiting", "plan", []string{"plan-deny"}, 0, "\x1b", "sent", ""},
		{"answer a question", "waiting", "question", []string{"answer", "use sqlite"}, 0, "\x1b|use sqlite|\r", "sent", ""},
		{"reply on permission is deny with feedback", "waiting", "permission", []string{"reply", "no: run the tests first"}, 0, "\x1b|no: run the tests first|\r", "sent", ""},
		{"reply when done has no prelude", "done", "", []string{"reply", "now commit"}, 0, "now commit|\r", "sent", ""},
		{"reply !ls is defused", "done", "", []string{"reply", "!ls"}, 0, " !ls|\r", "sent", ""},
		{"reply /clear types nothing (2.1.332 runs it space or not)", "done", "", []string{"reply", "/clear"}, 1, "", "refused", "slash command"},
		{"reply with a newline and ESC", "done", "", []string{"reply", "a\nb\x1b[2J!"}, 0, "a b[2J!|\r", "sent", ""},
		// tmux reads an argument ending in ";" as the end of a command.
		{"reply ending in ; types the ;", "done", "", []string{"reply", "end;"}, 0, "end;|\r", "sent", ""},
		{"reply ; alone types it", "done", "", []string{"reply", ";"}, 0, ";|\r", "sent", ""},
		{"reply ending in \\; types both", "done", "", []string{"reply", `a\;`}, 0, `a\;|` + "\r", "sent", ""},
		// What shows nothing before a trigger is gone: the ! is defused,
		// the / refused (2.1.332 runs " /clear").
		{"reply \\ufeff!ls is defused", "done", "", []string{"reply", "\ufeff!ls"}, 0, " !ls|\r", "sent", ""},
		{"reply \\ufeff/clear types nothing", "done", "", []string{"reply", "\ufeff/clear"}, 1, "", "refused", "slash command"},
		{"dry run types nothing", "waiting", "permission", []string{"approve", "-n"}, 0, "", "planned", ""},
		{"stale token types nothing", "waiting", "permission", []string{"approve", "--token", "1764470000000.3"}, 1, "", "refused", "stale"},
		{"approve while working types nothing", "working", "", []string{"approve"}, 1, "", "refused", "not waiting for approval"},
		{"answer on a permission wait types nothing", "waiting", "permission", []string{"answer", "x"}, 1, "", "refused", "not waiting on a question"},
		{"plan-approve on a permission wait types nothing", "waiting", "permission", []string{"plan-approve"}, 1, "", "refused", "not waiting on a plan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := s.with(t)
			a := s.agent()
			sf := writeState(t, t.TempDir(), stateFor(a.pane, tc.status, tc.attn))
			code, evs, stderr, sent := s.runKeysTraced(sf, "", append(tc.args, "--pane", a.pane)...)
			if code != tc.code || len(evs) != 1 {
				t.Fatalf("exit %d, %d events (%s); want %d, 1", code, len(evs), stderr, tc.code)
			}
			e := evs[0]
			if e.Kind != event.Keys || e.Src != event.SrcKeys || e.Status != tc.status2 || !strings.Contains(e.Reason, tc.reason) ||
				e.Agent != "claude" || e.Session != "sess-1" || e.Pane != a.pane || e.Action != tc.args[0] {
				t.Errorf("keys event %+v", e)
			}
			cs := a.reads(t, len(strings.ReplaceAll(tc.typed, "|", "")))
			if got := typed(cs); got != tc.typed {
				t.Fatalf("typed %q; want %q", got, tc.typed)
			}
			// What ag-keys controls: Enter is sent at least 150 ms after
			// the text, and the text at least 150 ms after a prelude.
			for i := 1; i < len(sent); i++ {
				if w := sent[i].step.Wait; w > 0 {
					if g := sent[i].at.Sub(sent[i-1].at); g < w {
						t.Errorf("step %d sent %v after the previous; want at least %v", i, g, w)
					}
				}
			}
			// What the agent saw: the same pauses, give or take tmux's
			// delivery jitter on a loaded machine.
			if strings.HasSuffix(tc.typed, "\r") {
				if g := gapBefore(t, cs, "\r"); g < 50*time.Millisecond || g > 2*time.Second {
					t.Errorf("Enter came %v after the text; want ~150ms", g)
				}
			}
			if strings.HasPrefix(tc.typed, "\x1b|") {
				if g := cs[1].at.Sub(cs[0].at); g < 50*time.Millisecond {
					t.Errorf("text came %v after Escape; want the 150ms settle", g)
				}
			}
		})
	}
}

// A shell in the pane means the agent has gone: refuse and type nothing.
func TestRefusesShellForeground(t *testing.T) {
	s := newServer(t)
	pane := s.shellWindow(s.dir, nil, "sh", "sh")
	before := s.tmux("capture-pane", "-p", "-t", pane)
	sf := writeState(t, t.TempDir(), stateFor(pane, "waiting", "permission"))
	code, evs, _ := s.runKeys(sf, "", "approve", "--pane", pane)
	if code != 1 || len(evs) != 1 || evs[0].Status != "refused" || !strings.Contains(evs[0].Reason, "foreground is sh") {
		t.Fatalf("exit %d, %+v", code, evs)
	}
	time.Sleep(200 * time.Millisecond)
	if after := s.tmux("capture-pane", "-p", "-t", pane); after != before {
		t.Errorf("pane changed:\n%s\n---\n%s", before, after)
	}
}

// The filter performs each action, refuses the stale and the replayed, and
// goes on.
func TestFilterMode(t *testing.T) {
	s := newServer(t)
	a := s.agent()
	st := stateFor(a.pane, "waiting", "permission")
	sf := writeState(t, t.TempDir(), st)
	action := func(id, act, token, text string) string {
		e := event.New(event.Action, time.Now(), "claude", "sess-1")
		e.Src, e.ID, e.Pane, e.Action, e.Token, e.Text = event.SrcNotify, id, a.pane, act, token, text
		return string(event.AppendJSON(nil, &e))
	}
	in := action("a1", "approve", "1764470000000.3", "") + // stale
		"{not json\n" +
		action("a2", "approve", "", "") + // no token
		action("a3", "reply", "1764470000000.4", "use\tthe staging db") +
		action("a3", "reply", "1764470000000.4", "use\tthe staging db") + // replay
		action("a4", "deny", "1764470000000.4", "") // same wait, already answered
	code, evs, stderr := s.runKeys(sf, in)
	if code != 2 || !strings.Contains(stderr, "<stdin>:2:") {
		t.Errorf("exit %d, stderr %q; want 2 and the bad line reported", code, stderr)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Status+" "+e.Reason)
	}
	want := []string{
		"refused stale: the session moved on (token 1764470000000.3, now 1764470000000.4)",
		"refused the action quotes no state token",
		"sent ",
		"refused action a3 was already performed",
		"refused this wait was already answered (token 1764470000000.4)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("keys events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := typed(a.reads(t, 20)); got != "\x1b|use the staging db|\r" {
		t.Errorf("typed %q", got)
	}
}

// A dry run in filter mode records nothing: the same action, pressed for
// real afterwards, is typed — once.
func TestFilterModeDryRunRecordsNothing(t *testing.T) {
	s := newServer(t)
	a := s.agent()
	sf := writeState(t, t.TempDir(), stateFor(a.pane, "waiting", "permission"))
	e := event.New(event.Action, time.Now(), "claude", "sess-1")
	e.Src, e.ID, e.Pane, e.Action, e.Token = event.SrcNotify, "a1", a.pane, "approve", "1764470000000.4"
	in := string(event.AppendJSON(nil, &e))
	for _, tc := range []struct {
		args   []string
		status string
	}{{[]string{"-n"}, "planned"}, {[]string{"-n"}, "planned"}, {nil, "sent"}, {nil, "refused"}} {
		code, evs, stderr := s.runKeys(sf, in, tc.args...)
		if len(evs) != 1 || evs[0].Status != tc.status {
			t.Fatalf("%q: exit %d, %+v, %s; want %s", tc.args, code, evs, stderr, tc.status)
		}
	}
	if got := typed(a.reads(t, 1)); got != "1" {
		t.Errorf("typed %q, want 1", got)
	}
}

// Claude's plan approval as it looks at the bottom of the pane (written for
// this test after the Claude provider's pane rules).
const planScreen = ` Ready to code?

 Here is Claude's plan:
 ╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
  Add a regression test for the parser.
 ╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌

 Claude has written up a plan and is ready to execute. Would you like to proceed?

 ❯ 1. Yes, and use auto mode
   2. Yes, manually approve edits
   3. No, refine with Ultraplan on Claude Code on the web
   4. Tell Claude what to change

 ctrl+g to edit in Vim · ~/.claude/plans/regression-test.md
`

// The hook stores a plan approval as a permission wait; the pane says it is
// a plan, so approve must type the plan approve "2", never the permission
// "1" (auto mode).
func TestApprovePlanStoredAsPermission(t *testing.T) {
	s := newServer(t)
	a := s.agentShowing(strings.ReplaceAll(planScreen, "\n", "\r\n"))
	if got := s.tmux("capture-pane", "-p", "-t", a.pane); !strings.Contains(got, "2. Yes, manually approve edits") {
		t.Fatalf("the fake screen is not on the pane:\n%s", got)
	}
	sf := writeState(t, t.TempDir(), stateFor(a.pane, "waiting", "permission"))
	code, evs, stderr := s.runKeys(sf, "", "approve", "--pane", a.pane)
	if code != 0 || len(evs) != 1 || evs[0].Status != "sent" || evs[0].Text != "2" {
		t.Fatalf("exit %d %+v %s", code, evs, stderr)
	}
	if got := typed(a.reads(t, 1)); got != "2" {
		t.Errorf("typed %q; want 2", got)
	}
}

// A permission prompt whose command, description and option 2 hold the
// plan's words (issue 28): the pane reads as the permission it is, and
// Approve types its "1", never the plan's "2" ("don't ask again" here).
const steeredScreen = `● Bash(echo manually approve edits)
────────────────────────────────────────────────────────────
 Bash command
   echo manually approve edits
 Ready to code?
 Would you like to proceed?
 ❯ 1. Yes
   2. Yes, and don't ask again for echo manually approve edits ~/.claude/plans/x.md commands
   3. No

 Esc to cancel · Tab to amend
`

func TestSteeredPermissionIsNoPlan(t *testing.T) {
	s := newServer(t)
	for _, tc := range []struct {
		name, screen, typed string
		status              string
	}{
		{"plan words in a permission prompt", steeredScreen, "1", "sent"},
		// The plan picker without its plan file: where the hooks said
		// permission, nothing is typed.
		{"a plan without its file", strings.Split(planScreen, "\n ctrl+g")[0] + "\n", "", "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := s.with(t).agentShowing(strings.ReplaceAll(tc.screen, "\n", "\r\n"))
			sf := writeState(t, t.TempDir(), stateFor(a.pane, "waiting", "permission"))
			_, evs, stderr := s.with(t).runKeys(sf, "", "approve", "--pane", a.pane)
			if len(evs) != 1 || evs[0].Status != tc.status {
				t.Fatalf("%+v %s; want %s", evs, stderr, tc.status)
			}
			if got := typed(a.reads(t, len(tc.typed))); got != tc.typed {
				t.Errorf("typed %q; want %q", got, tc.typed)
			}
		})
	}
}

// Claude's question picker as the pane shows it.
const questionScreen = ` ☐ Storage

 Which database should the cache use?

 ❯ 1. SQLite
     Embedded, no server.
   2. Redis
     Shared across hosts.
   3. Type something.

 Enter to select · ↑/↓ to navigate · Esc to cancel
`

// The hook stores an AskUserQuestion picker as a permission wait too: the
// pane says question, so approve is refused and answer goes through, into
// the picker's "Type something." row (its digit, the text, Enter).
func TestQuestionStoredAsPermission(t *testing.T) {
	s := newServer(t)
	a := s.agentShowing(strings.ReplaceAll(questionScreen, "\n", "\r\n"))
	sf := writeState(t, t.TempDir(), stateFor(a.pane, "waiting", "permission"))
	code, evs, _ := s.runKeys(sf, "", "approve", "--pane", a.pane)
	if code != 1 || len(evs) != 1 || !strings.Contains(evs[0].Reason, "waiting on a question") {
		t.Fatalf("approve: exit %d %+v", code, evs)
	}
	code, evs, stderr := s.runKeys(sf, "", "answer", "SQLite, embedded", "--pane", a.pane)
	if code != 0 || len(evs) != 1 || evs[0].Status != "sent" {
		t.Fatalf("answer: exit %d %+v %s", code, evs, stderr)
	}
	if got := typed(a.reads(t, 18)); got != "3|SQLite, embedded|\r" {
		t.Errorf("typed %q", got)
	}
}

// A reply whose Enter Gemini read as a newline is still in the composer:
// ag-keys presses Enter once more, and only then. (The fake draws Gemini's
// composer: the state names gemini, whose pane rules read it.)
func TestReplyLeftInTheComposer(t *testing.T) {
	s := newServer(t)
	for _, tc := range []struct {
		name  string
		drop  int
		typed string
	}{
		{"the Enter lost", 1, "say it again|\r|\r"},
		{"the Enter taken", 0, "say it again|\r"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := s.with(t)
			a := s.composerAgent(tc.drop)
			st := stateFor(a.pane, "done", "")
			st.Agent = "gemini"
			sf := writeState(t, t.TempDir(), st)
			code, evs, stderr := s.runKeys(sf, "", "reply", "say it again", "--pane", a.pane)
			if code != 0 || len(evs) != 1 || evs[0].Status != "sent" {
				t.Fatalf("exit %d %+v %s", code, evs, stderr)
			}
			again := tc.drop > 0
			if e := evs[0]; strings.HasSuffix(e.Text, "Enter, Enter") != again || strings.Contains(e.Reason, "Enter again") != again {
				t.Errorf("keys event text %q reason %q; Enter again: %v", e.Text, e.Reason, again)
			}
			if got := typed(a.reads(t, len(strings.ReplaceAll(tc.typed, "|", "")))); got != tc.typed {
				t.Errorf("typed %q; want %q", got, tc.typed)
			}
			if screen := s.waitPane(a.pane, "> say it again"); !strings.Contains(screen, "Type your message") {
				t.Errorf("the reply is not sent:\n%s", screen)
			}
		})
	}
}

// A Gemini composer in shell mode takes no reply: it would run as a
// command.
func TestNoReplyInShellMode(t *testing.T) {
	s := newServer(t)
	a := s.agentShowing(strings.Join([]string{strings.Repeat("─", 60), "  shell mode enabled (esc to disable)", "",
		" !   Type your shell command", "", " workspace (/directory)    sandbox", " /tmp/p   no sandbox"}, "\r\n"))
	st := stateFor(a.pane, "done", "")
	st.Agent = "gemini"
	sf := writeState(t, t.TempDir(), st)
	code, evs, _ := s.runKeys(sf, "", "reply", "ls", "--pane", a.pane)
	if code != 1 || len(evs) != 1 || !strings.Contains(evs[0].Reason, "shell mode") {
		t.Fatalf("exit %d %+v", code, evs)
	}
	if got := typed(a.reads(t, 1)); got != "" {
		t.Errorf("typed %q", got)
	}
}

// An agent whose key map pastes (Gemini) gets the reply as one bracketed
// paste when its terminal asked for them, then Enter.
func TestReplyPasted(t *testing.T) {
	s := newServer(t)
	a := s.agentShowing("\x1b[?2004h\r\nready for a paste\r\n")
	st := stateFor(a.pane, "done", "")
	st.Agent = "gemini"
	sf := writeState(t, t.TempDir(), st)
	code, evs, stderr := s.runKeys(sf, "", "reply", "say hi", "--pane", a.pane)
	if code != 0 || len(evs) != 1 || evs[0].Text != `paste "say hi", 150ms, Enter` {
		t.Fatalf("exit %d %+v %s", code, evs, stderr)
	}
	if got := typed(a.reads(t, 19)); got != "\x1b[200~say hi\x1b[201~|\r" {
		t.Errorf("typed %q", got)
	}
}

// An answer to Gemini's question gets its Enter only once the dialog shows
// it in the cursor's row: an Enter before picks the option the cursor is
// on. If it never shows, no Enter.
func TestAnswerEnterOnceShown(t *testing.T) {
	s := newServer(t)
	for _, tc := range []struct {
		name   string
		lag    time.Duration
		status string
	}{
		{"shown late", 700 * time.Millisecond, "sent"},
		{"never shown", time.Hour, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := s.with(t)
			a := s.fakeWindow("AG_KEYS_FAKE_DIALOG=" + strconv.Itoa(int(tc.lag/time.Millisecond)))
			s.waitPane(a.pane, "Enter a custom value")
			st := stateFor(a.pane, "waiting", "question")
			st.Agent = "gemini"
			sf := writeState(t, t.TempDir(), st)
			_, evs, stderr, sent := s.runKeysTraced(sf, "", "answer", "Green, but darker", "--pane", a.pane)
			if len(evs) != 1 || evs[0].Status != tc.status {
				t.Fatalf("%+v %s", evs, stderr)
			}
			want := "Green, but darker"
			if tc.status == "sent" {
				want += "|\r"
				if evs[0].Text != `paste "Green, but darker", 150ms, Enter once shown` {
					t.Errorf("keys text %q", evs[0].Text)
				}
				if len(sent) != 2 || sent[1].at.Sub(sent[0].at) < tc.lag {
					t.Errorf("Enter %v after the text; want it once shown, %v later", sent[1].at.Sub(sent[0].at), tc.lag)
				}
			} else if !strings.Contains(evs[0].Reason, "never showed the reply") {
				t.Errorf("reason %q", evs[0].Reason)
			}
			if got := typed(a.reads(t, len(strings.ReplaceAll(want, "|", "")))); got != want {
				t.Errorf("typed %q; want %q", got, want)
			}
		})
	}
}

// A sub-agent's deny on OpenCode is Escape, which opens a reason dialog,
// then Enter, which rejects there — but approves on the permission dialog
// it replaced. So the Enter waits until the pane shows the reason dialog,
// and is never sent when it does not come.
func TestSubDenyEnterOnceTheReasonShows(t *testing.T) {
	s := newServer(t)
	for _, tc := range []struct {
		name   string
		lag    time.Duration
		status string
	}{
		{"the dialog late", 700 * time.Millisecond, "sent"},
		{"no dialog", time.Hour, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := s.with(t)
			screens, err := filepath.Abs(filepath.Join("..", "..", "providers", "opencode", "testdata", "screens"))
			if err != nil {
				t.Fatal(err)
			}
			a := s.fakeWindow("AG_KEYS_FAKE_REJECT="+strconv.Itoa(int(tc.lag/time.Millisecond)), "AG_KEYS_FAKE_SCREENS="+screens)
			s.waitPane(a.pane, "Permission required")
			st := stateFor(a.pane, "waiting", "permission")
			st.Agent, st.Sub = "opencode", "ses_sub"
			sf := writeState(t, t.TempDir(), st)
			_, evs, stderr, sent := s.runKeysTraced(sf, "", "deny", "--pane", a.pane)
			if len(evs) != 1 || evs[0].Status != tc.status {
				t.Fatalf("%+v %s", evs, stderr)
			}
			want := "\x1b"
			if tc.status == "sent" {
				want += "|\r" // two reads: the Enter came apart
				if evs[0].Text != "Escape, 30ms, Enter once reject-reason shows" {
					t.Errorf("keys text %q", evs[0].Text)
				}
				if len(sent) != 2 || sent[1].at.Sub(sent[0].at) < tc.lag {
					t.Errorf("Enter %v after Escape; want it once the dialog shows, %v later", sent[1].at.Sub(sent[0].at), tc.lag)
				}
			} else if !strings.Contains(evs[0].Reason, "never showed reject-reason") {
				t.Errorf("reason %q", evs[0].Reason)
			}
			if got := typed(a.reads(t, len(strings.ReplaceAll(want, "|", "")))); got != want {
				t.Errorf("typed %q; want %q", got, want)
			}
		})
	}
}

// TestActionAheadOfStateFile: a press that quotes a wait the state file
// does not hold yet (ag-fold writes it at most every --debounce; another
// host's notification can arrive sooner) waits for the file to catch up
// and is typed; one the file never reaches is refused as such.
func TestActionAheadOfStateFile(t *testing.T) {
	s := newServer(t)
	a := s.agent()
	dir := t.TempDir()
	working := stateFor(a.pane, "working", "")
	working.Token = "1764470000000.3"
	sf := writeState(t, dir, working)
	action := func(id, token string) string {
		e := event.New(event.Action, time.Now(), "claude", "sess-1")
		e.Src, e.ID, e.Pane, e.Action, e.Token = event.SrcNotify, id, a.pane, "approve", token
		return string(event.AppendJSON(nil, &e))
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		writeState(t, dir, stateFor(a.pane, "waiting", "permission")) // token ….4
	}()
	start := time.Now()
	code, evs, stderr := s.runKeys(sf, action("a1", "1764470000000.4"))
	if code != 0 || len(evs) != 1 || evs[0].Status != "sent" {
		t.Fatalf("exit %d, stderr %q, events %+v; want the approve sent once the file caught up", code, stderr, evs)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("sent after %v, before the state file held the wait", d)
	}
	if got := typed(a.reads(t, 1)); got != "1" {
		t.Fatalf("typed %q", got)
	}

	start = time.Now()
	code, evs, _ = s.runKeys(sf, action("a2", "1764470000000.9"))
	if code != 0 || len(evs) != 1 || evs[0].Status != "refused" ||
		evs[0].Reason != "the state file has not reached token 1764470000000.9 in 2s (now 1764470000000.4; is ag-fold running?)" {
		t.Fatalf("exit %d, events %+v", code, evs)
	}
	if d := time.Since(start); d < catchUp || d > catchUp+time.Second {
		t.Fatalf("refused after %v; want about %v", d, catchUp)
	}
}
