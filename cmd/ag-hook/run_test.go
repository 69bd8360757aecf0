package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// TestMain lets the test binary act as ag-hook, so tests can start many
// real ag-hook processes without building anything.
func TestMain(m *testing.M) {
	if os.Getenv("AG_HOOK_TEST_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const payload = `{"session_id":"s-1","transcript_path":"/t/s-1.jsonl","cwd":"/home/u/app","prompt_id":"p-1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"toolu_1"}`

type result struct {
	code           int
	stdout, stderr string
}

// try runs ag-hook in-process with env (nothing else of the real one).
func try(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	c := newCmd(context.Background(), strings.NewReader(stdin), &out, &errb)
	c.env = func(k string) string { return env[k] }
	c.setup = func(args []string) int { t.Fatalf("ag-hook-setup run for %q", args); return 2 }
	code := c.main(args)
	return result{code, out.String(), errb.String()}
}

func spoolLines(t *testing.T, dir string) []event.Event {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "spool.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []event.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e event.Event
		if err := event.Decode(sc.Bytes(), &e); err != nil {
			t.Fatalf("spool line %d: %v: %q", len(evs)+1, err, sc.Text())
		}
		evs = append(evs, e)
	}
	return evs
}

func TestHookAppends(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ag")
	before := time.Now().Add(-time.Millisecond)
	r := try(t, map[string]string{"AG_DIR": dir, "TMUX_PANE": "%7", "ANTHROPIC_API_KEY": "sk-secret"}, payload, "claude")
	if r != (result{}) {
		t.Fatalf("got %+v, want exit 0 and no output", r)
	}
	evs := spoolLines(t, dir)
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	e := evs[0]
	if e.Kind != event.ToolStart || e.Session != "s-1" || e.Pane != "%7" || e.PID != os.Getppid() && e.PID == 0 || e.Cwd != "/home/u/app" || e.Host == "" {
		t.Errorf("event %s", event.Marshal(&e))
	}
	if e.T.Before(before) || e.T.After(time.Now()) {
		t.Errorf("t %v is not the hook's clock", e.T)
	}
	line, _ := os.ReadFile(filepath.Join(dir, "spool.ndjson"))
	if bytes.Contains(line, []byte("sk-secret")) {
		t.Error("an environment variable leaked into the spool")
	}
}

// TestHookNeverFails: every path exits 0 with nothing on stdout or stderr.
func TestHookNeverFails(t *testing.T) {
	tmp := t.TempDir()
	notDir := filepath.Join(tmp, "file")
	os.WriteFile(notDir, nil, 0o600)
	ok := map[string]string{"AG_DIR": filepath.Join(tmp, "ok")}
	tests := []struct {
		name  string
		env   map[string]string
		stdin string
		args  []string
	}{
		{"garbage", ok, "garbage\x00\xff", []string{"claude"}},
		{"empty", ok, "", []string{"claude"}},
		{"array", ok, "[1,2]", []string{"claude"}},
		{"no session", ok, `{"hook_event_name":"Stop"}`, []string{"claude"}},
		{"unmapped hook", ok, `{"session_id":"s","hook_event_name":"FileChanged"}`, []string{"claude"}},
		{"unwritable spool", map[string]string{"AG_DIR": filepath.Join(notDir, "ag")}, payload, []string{"claude"}},
		{"unknown flag", ok, payload, []string{"claude", "--bogus"}},
		{"extra argument", ok, payload, []string{"claude", "extra"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := try(t, tc.env, tc.stdin, tc.args...); r.code != 0 || r.stdout != "" {
				t.Errorf("got %+v, want exit 0 and empty stdout", r)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "ok", "spool.ndjson")); err == nil {
		evs := spoolLines(t, filepath.Join(tmp, "ok"))
		// Only the two runs with a good payload wrote: flags it does not
		// know and extra arguments do not cost the event.
		if len(evs) != 2 {
			t.Errorf("%d events, want 2", len(evs))
		}
	}
}

func TestHookDebugLog(t *testing.T) {
	tmp := t.TempDir()
	notDir := filepath.Join(tmp, "file")
	os.WriteFile(notDir, nil, 0o600)
	log := filepath.Join(tmp, "debug.log")
	r := try(t, map[string]string{"AG_DIR": filepath.Join(notDir, "ag"), "AG_DEBUG": log}, payload, "claude")
	if r != (result{}) {
		t.Fatalf("%+v", r)
	}
	r = try(t, map[string]string{"AG_DIR": filepath.Join(tmp, "ag"), "AG_DEBUG": log}, "garbage", "claude")
	if r != (result{}) {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "claude: spool:") || !strings.Contains(lines[1], "claude: hook payload:") {
		t.Errorf("debug log:\n%s", b)
	}
	// AG_DEBUG=1 logs into the state directory.
	try(t, map[string]string{"AG_DIR": filepath.Join(tmp, "ag"), "AG_DEBUG": "1"}, "garbage", "claude")
	if b, err := os.ReadFile(filepath.Join(tmp, "ag", "ag-hook.log")); err != nil || !bytes.Contains(b, []byte("hook payload")) {
		t.Errorf("ag-hook.log: %q %v", b, err)
	}
}

func TestHookPrint(t *testing.T) {
	dir := t.TempDir()
	r := try(t, map[string]string{"AG_DIR": dir}, payload, "claude", "--print")
	var e event.Event
	if r.code != 0 || event.Decode([]byte(strings.TrimSpace(r.stdout)), &e) != nil || e.ToolID != "toolu_1" {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "spool.ndjson")); err == nil {
		t.Error("--print also wrote the spool")
	}
}

// TestPassedOn: what ag-hook does not run itself goes to ag-hook-setup,
// arguments unchanged; a hook or statusline asked for help too.
func TestPassedOn(t *testing.T) {
	for _, args := range [][]string{
		nil, {"--help"}, {"--man"}, {"--version"}, {"bogus"}, {"install", "--agent", "claude"},
		{"uninstall", "--agent", "codex"}, {"status"}, {"claude", "--help"}, {"codex", "-h"},
		{"statusline", "--help"}, {"statusline", "--then", "x", "--man"},
	} {
		var got []string
		c := newCmd(context.Background(), strings.NewReader(""), io.Discard, io.Discard)
		c.setup = func(a []string) int { got = append([]string{}, a...); return 7 }
		if code := c.main(args); code != 7 || !slices.Equal(got, args) {
			t.Errorf("ag-hook %q: exit %d, ag-hook-setup given %q", args, code, got)
		}
	}
}

// BenchmarkHook is one `ag-hook claude` without the process around it:
// read the payload, walk the ancestors, map, append to the spool.
func BenchmarkHook(b *testing.B) {
	dir := b.TempDir()
	env := map[string]string{"AG_DIR": dir, "TMUX_PANE": "%1"}
	b.ReportAllocs()
	for b.Loop() {
		c := newCmd(context.Background(), strings.NewReader(payload), io.Discard, io.Discard)
		c.env = func(k string) string { return env[k] }
		if c.main([]string{"claude"}) != 0 {
			b.Fatal("exit status")
		}
	}
}

// answering is a hook mapper whose agent wants "{}" from every hook, and
// which fails or panics on command.
type answering struct{ mode string }

func (answering) ID() string             { return "answering" }
func (answering) ProcessNames() []string { return nil }
func (a answering) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	switch a.mode {
	case "error":
		return nil, errors.New("bad payload")
	case "panic":
		panic("boom")
	}
	e := event.Event{Kind: event.TurnEnd, Agent: "answering", Session: "s", Src: event.SrcHook}
	return []event.Event{e}, nil
}
func (answering) Answer(payload []byte) []byte { return []byte("{}\n") }

// TestHookAnswers: an agent that requires an answer gets exactly it on
// every path — a good payload, a bad one, a panic, an unwritable spool —
// and nothing else; --print prints the events instead.
func TestHookAnswers(t *testing.T) {
	dir := t.TempDir()
	blocked := filepath.Join(dir, "file")
	os.WriteFile(blocked, nil, 0o600)
	for _, tc := range []struct {
		name, mode, agDir string
	}{
		{"ok", "", filepath.Join(dir, "ag")},
		{"error", "error", filepath.Join(dir, "ag")},
		{"panic", "panic", filepath.Join(dir, "ag")},
		{"unwritable spool", "", filepath.Join(blocked, "ag")},
	} {
		var out, errb bytes.Buffer
		c := newCmd(context.Background(), strings.NewReader(payload), &out, &errb)
		env := map[string]string{"AG_DIR": tc.agDir}
		c.env = func(k string) string { return env[k] }
		if code := c.hook(answering{tc.mode}, "", false); code != 0 || out.String() != "{}\n" || errb.Len() > 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 0, {}, nothing", tc.name, code, out.String(), errb.String())
		}
	}
	var out bytes.Buffer
	c := newCmd(context.Background(), strings.NewReader(payload), &out, io.Discard)
	c.hook(answering{}, "", true)
	if !strings.Contains(out.String(), `"kind":"turn.end"`) || strings.HasSuffix(out.String(), "{}\n") {
		t.Errorf("--print wrote %q, want the events only", out.String())
	}
}
