package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/proc"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers"
)

func runDetect(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestSegment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("AG_DIR", dir)
	t.Setenv("TMUX_PANE", "%3")
	now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	st := func(pane, status, attention, tool string, age time.Duration) event.Event {
		e := event.New(event.State, now.Add(-age), "claude", "s"+pane)
		e.Src, e.Pane, e.Status, e.Attention, e.Tool = event.SrcFold, pane, status, attention, tool
		return e
	}
	if err := state.Write(filepath.Join(dir, "state.json"), now, state.Self(0), []event.Event{
		st("%3", event.StatusGone, "", "", time.Hour), // an older session in the same pane
		st("%3", event.StatusWaiting, event.AttnPermission, "Bash", 0),
		st("%4", event.StatusWaiting, event.AttnQuestion, "AskUserQuestion", 0),
		st("%5", event.StatusGone, "", "", 0),
		st("%6", event.StatusWaiting, "", "", 0),
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--pane"}, "claude ⏳ Bash\n"},
		{[]string{"--pane", "%4"}, "claude ❓\n"},
		{[]string{"--pane", "%5"}, ""},
		{[]string{"--pane", "%6"}, "claude ⏳\n"},
		{[]string{"--pane", "%404"}, ""},
		{[]string{"--pane", "--format", "{{.Session}} {{.Status}}"}, "s%3 waiting\n"},
	} {
		out, errs, code := runDetect(t, tc.args...)
		if out != tc.want || errs != "" || code != cli.ExitOK {
			t.Errorf("%q: got %q, stderr %q, exit %d; want %q", tc.args, out, errs, code, tc.want)
		}
	}
	// A broken state file is an error, said once.
	os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600)
	out, errs, code := runDetect(t, "--pane")
	if out != "" || code != cli.ExitError || !strings.HasPrefix(errs, "ag-detect: ") || strings.Count(errs, "\n") != 1 {
		t.Errorf("broken file: %q %q %d", out, errs, code)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"extra"},
		{"--format", "{{.Agent}}"},
		{"--interval", "0s", "--watch"},
		{"--pane", "%1", "%2"},
		{"--no-such-flag"},
	} {
		out, errs, code := runDetect(t, args...)
		if code != cli.ExitError || out != "" || !strings.HasPrefix(errs, "ag-detect: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

func TestRules(t *testing.T) {
	r := newRules(providers.All())
	for _, tc := range []struct {
		exe      string
		argv     []string
		agent    string
		launcher bool
	}{
		{"/x/node_modules/@anthropic-ai/claude-code/bin/claude.exe", []string{"/x/node_modules/.bin/claude"}, "claude", false},
		{"/usr/bin/node", []string{"node", "/x/node_modules/@anthropic-ai/claude-code/cli.js"}, "claude", false},
		{"/usr/bin/bash", []string{"-bash"}, "", false},
		// Codex's npm bin is a node launcher; the native child is the agent.
		{"/usr/bin/node", []string{"node", "/x/node_modules/.bin/codex", "--no-daemon"}, "codex", true},
		{"/x/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
			[]string{"/x/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", "--no-daemon"}, "codex", false},
		{"/usr/local/bin/codex", []string{"codex", "resume", "01a22a3d-7489-75e1-a18e-a8dc8b3849ac"}, "codex", false},
		// Codex's own helpers and shared server are never a session.
		{"/x/bin/codex-code-mode-host", []string{"codex-code-mode-host"}, "", false},
		{"/h/.codex/packages/app-server-daemon/releases/0.171.0/bin/codex",
			[]string{"/h/.codex/packages/app-server-daemon/releases/0.171.0/bin/codex", "app-server"}, "", false},
		{"/h/.codex/plugins/cache/computer-use/1.0/Codex", []string{"Codex"}, "", false},
		{"/usr/bin/vim", []string{"vim", "codex"}, "", false},
	} {
		if got, l := r.match(tc.exe, tc.argv); got != tc.agent || l != tc.launcher {
			t.Errorf("match(%q, %q) = %q launcher %t, want %q %t", tc.exe, tc.argv, got, l, tc.agent, tc.launcher)
		}
	}
	if !r.shell("/bin/bash", []string{"-bash"}) || !r.lookThrough("/usr/bin/env", []string{"env"}) || r.lookThrough("/usr/bin/ssh", []string{"ssh"}) {
		t.Error("shell / wrapper lists")
	}
	if r.hint("claude") != "claude" || r.hint("claude-code") != "" || r.hint("") != "" {
		t.Error("hint accepts only agent ids")
	}
	if r.panes["claude"] == nil || r.panes["codex"] == nil {
		t.Error("claude and codex have pane rules")
	}
}

type noInfo struct{}

func (noInfo) Exe(int) string        { return "" }
func (noInfo) Argv(int) []string     { return nil }
func (noInfo) Env(int) []string      { return nil }
func (noInfo) Cwd(int) string        { return "" }
func (noInfo) Started(int) time.Time { return time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC) }
func sight(pane string, pid int, start uint64) sighting {
	return sighting{pane: pane, tty: "/dev/pts/1", cwd: "/w", start: start,
		found: proc.Found{Agent: "claude", PID: pid, Argv: []string{"claude"}}}
}

// --watch writes downs, then ups; a pane whose process changed (a new pid,
// or the same pid reused by a new process) is a down and an up.
func TestDiff(t *testing.T) {
	var out bytes.Buffer
	d := &detector{out: cli.NewWriter(&out), now: func() time.Time { return time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC) }}
	s := &scanner{d: d, info: noInfo{}, rules: defaultRules()}
	before := map[string]sighting{"%1": sight("%1", 10, 1), "%2": sight("%2", 20, 1), "%3": sight("%3", 30, 1)}
	after := map[string]sighting{"%1": sight("%1", 10, 1), "%2": sight("%2", 20, 2), "%10": sight("%10", 40, 1)}
	if err := s.diff(before, after); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e event.Event
		if err := event.Decode([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Kind+" "+e.Pane+" "+e.T.Format("15:04"))
	}
	want := []string{"proc.down %2 03:00", "proc.down %3 03:00", "proc.up %2 02:00", "proc.up %10 02:00"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// A command line that resumes a session names it.
	resumed := sight("%5", 50, 1)
	resumed.found.Agent, resumed.found.Argv = "codex", []string{"codex", "resume", "019A2B3C-4D5E-7F60-8A9B-0C1D2E3F4A5B"}
	if e := s.procEvent(event.ProcUp, resumed, time.Time{}); e.Session != "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b" {
		t.Errorf("proc.up of codex resume: session %q", e.Session)
	}
	if e := s.procEvent(event.ProcUp, sight("%1", 10, 1), time.Time{}); e.Session != "" {
		t.Errorf("proc.up of a plain claude: session %q", e.Session)
	}
	// The same process seen again is the same event.
	a, b := s.procEvent(event.ProcUp, sight("%1", 10, 1), time.Time{}), s.procEvent(event.ProcUp, sight("%1", 10, 1), time.Time{})
	if a.ID != b.ID || a.ID == s.procEvent(event.ProcUp, sight("%1", 10, 2), time.Time{}).ID {
		t.Error("proc.up ids must follow the process identity")
	}
}

// The hand-written default is the documented template.
func TestDefaultSegment(t *testing.T) {
	tmpl := template.Must(template.New("").Parse(defaultFormat))
	for _, d := range []segmentData{
		{Event: event.Event{Agent: "claude"}, Icon: "⏳", Detail: "Bash"},
		{Event: event.Event{Agent: "claude"}, Icon: "❓"},
		{Event: event.Event{Agent: "codex"}},
	} {
		var a, b bytes.Buffer
		tmpl.Execute(&a, d)
		defaultSegment(&b, &d)
		if a.String() != b.String() {
			t.Errorf("template %q, by hand %q", a.String(), b.String())
		}
	}
}

// TestPaneEventIDs: the same screen seen again (a restarted ag-detect, the
// same window activity) is the same event; a turn started again later, or
// a prompt's end for another reason, is another — ag-fold folds an id once.
func TestPaneEventIDs(t *testing.T) {
	d := &detector{}
	s := &scanner{d: d}
	at := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	sg := sight("%1", 10, 1)
	busy := panes.Result{Kind: panes.Busy}
	idle := panes.Result{Kind: panes.Idle}
	sg.activity = 1764871200
	if a, b := s.paneEvent(event.TurnStart, sg, busy, at, "", nil), s.paneEvent(event.TurnStart, sg, busy, at.Add(time.Second), "", nil); a.ID != b.ID {
		t.Error("the same screen at the same window activity: two ids")
	}
	if a, b := s.paneEvent(event.WaitEnd, sg, busy, at, "", nil), s.paneEvent(event.WaitEnd, sg, idle, at, "", nil); a.ID == b.ID {
		t.Error("a prompt's end busy and idle: one id")
	}
	sg.activity = 0 // followed: no window activity, the read's time
	if a, b := s.paneEvent(event.TurnStart, sg, busy, at, "", nil), s.paneEvent(event.TurnStart, sg, busy, at.Add(5*time.Second), "", nil); a.ID == b.ID {
		t.Error("two turns read five seconds apart: one id")
	}
}

// TestWhyIsSafe: a why holds what a process and a screen show, which an
// agent controls: no escape sequence leaves ag in it.
func TestWhyIsSafe(t *testing.T) {
	r := defaultRules()
	found := proc.Found{Agent: "claude", PID: 1, Exe: "/x/claude", Argv: []string{"claude\x1b]52;c;ZXZpbA==\x07"}, Via: "foreground"}
	if w := r.why(found); strings.ContainsAny(w, "\x1b\x07") || !strings.Contains(w, "name claude") {
		t.Errorf("why %q", w)
	}
	if w := clampWhy("permission: line 3 \"\x1b[31mRun it?\u202e\" ~ ^x"); strings.ContainsAny(w, "\x1b\u202e") {
		t.Errorf("clampWhy %q", w)
	}
}

// TestPassThrough: --watch's stdin goes to stdout in whole lines only,
// never cut by an event of ag-detect's own written meanwhile; a last line
// with no newline gets one; a line longer than the limit is dropped and
// said, and the lines after it go on.
func TestPassThrough(t *testing.T) {
	long := strings.Repeat("x", 100)
	in := "{\"a\":1}\n" + long + "\n{\"b\":2}\n{\"c\":3}"
	for _, chunk := range []int{1, 3, 7, 64, 1000} {
		var out, errb bytes.Buffer
		d := &detector{prog: program(), out: cli.NewWriter(&out)}
		d.prog.Stderr = &errb
		r := &chunky{s: in, n: chunk, between: func() {
			e := event.New(event.ProcUp, time.Unix(0, 0), "claude", "")
			if err := d.event(&e); err != nil {
				t.Fatal(err)
			}
		}}
		if err := d.copyLines(r, 64); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if !strings.Contains(l, `"kind":"proc.up"`) {
				got = append(got, l)
			} else if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") {
				t.Errorf("chunks of %d: an event cut or glued: %q", chunk, l)
			}
		}
		if want := []string{`{"a":1}`, `{"b":2}`, `{"c":3}`}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("chunks of %d: passed %q, want %q", chunk, got, want)
		}
		if !strings.HasSuffix(out.String(), "\n") {
			t.Errorf("chunks of %d: the last line has no newline", chunk)
		}
		if !strings.Contains(errb.String(), "ag-detect: <stdin>:2: a line longer than 64 bytes, dropped") {
			t.Errorf("chunks of %d: stderr %q", chunk, errb.String())
		}
	}
}

// chunky reads s n bytes at a time, calling between after each read.
type chunky struct {
	s       string
	n       int
	between func()
}

func (c *chunky) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := copy(p, c.s[:min(c.n, len(c.s))])
	c.s = c.s[n:]
	c.between()
	return n, nil
}
