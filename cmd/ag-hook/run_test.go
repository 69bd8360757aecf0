package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
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
	c.self = func() (string, error) { return "/opt/ag/bin/ag-hook", nil }
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

func TestHelpAndUsage(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{[]string{"--help"}, 0, []string{"Usage:", "claude", "install", "uninstall", "status", "AG_DEBUG"}, ""},
		{[]string{"--man"}, 0, []string{".TH ag-hook", "install", "dry-run"}, ""},
		{[]string{"install", "--help"}, 0, []string{"--agent", "--dry-run", "--hook"}, ""},
		{[]string{"claude", "--help"}, 0, []string{"--print"}, ""},
		{[]string{"--version"}, 0, []string{"ag-hook "}, ""},
		{nil, 2, nil, "ag-hook: no command"},
		{[]string{"bogus"}, 2, nil, `ag-hook: unknown command "bogus"`},
		{[]string{"install"}, 2, nil, "ag-hook: install: --agent is required"},
		{[]string{"install", "--agent", "nope"}, 2, nil, "ag-hook: --agent nope: no such agent"},
		{[]string{"status", "extra"}, 2, nil, `ag-hook: unexpected argument "extra"`},
	}
	for _, tc := range tests {
		r := try(t, map[string]string{"HOME": t.TempDir()}, "", tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stderr, tc.stderr) || (tc.stderr == "" && r.stderr != "") {
			t.Errorf("ag-hook %q: code %d stderr %q; want %d %q", tc.args, r.code, r.stderr, tc.code, tc.stderr)
		}
		for _, s := range tc.stdout {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("ag-hook %q: stdout lacks %q", tc.args, s)
			}
		}
	}
}

// TestInstallCycle drives install/status/uninstall through the command,
// exit codes included.
func TestInstallCycle(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	hooks := filepath.Join(home, ".codex", "hooks.json")
	orig := "{\n  \"model\": \"opus\"\n}\n"
	os.WriteFile(settings, []byte(orig), 0o600)

	steps := []struct {
		args []string
		code int
		out  string // a line stdout must have
	}{
		{[]string{"status"}, 1, "claude: Not installed (" + settings + ")"},
		{[]string{"install", "--agent", "claude", "--dry-run"}, 0, "claude: hooks would be installed in " + settings + " (14 added)"},
		{[]string{"status", "--agent", "claude"}, 1, "claude: Not installed"},
		{[]string{"install", "--agent", "claude"}, 0, "  + Stop: '/opt/ag/bin/ag-hook' claude"},
		{[]string{"status"}, 0, "claude: Installed (" + settings + ")"},
		{[]string{"install", "--agent", "claude"}, 0, "claude: already installed in " + settings},
		{[]string{"status", "--hook", "/elsewhere/ag-hook"}, 1, "claude: Needs repair (" + settings + "): SessionStart: runs '/opt/ag/bin/ag-hook' claude (missing), want '/elsewhere/ag-hook' claude;"},
		{[]string{"uninstall", "--agent", "claude"}, 0, "claude: hooks removed from " + settings + " (14 removed); previous version in " + settings + ".ag-backup"},
		{[]string{"uninstall", "--agent", "claude"}, 0, "claude: no ag hooks in " + settings},
		{[]string{"status"}, 1, "claude: Not installed"},
		// A second agent: status without --agent lists both; one never
		// installed for is no fault, one in need of repair is.
		{[]string{"install", "--agent", "claude"}, 0, "claude: hooks installed in"},
		{[]string{"status"}, 0, "codex: Not installed (" + hooks + ")"},
		{[]string{"status", "--agent", "codex"}, 1, "codex: Not installed"},
		{[]string{"install", "--agent", "codex"}, 0, "codex: hooks installed in " + hooks},
		{[]string{"status"}, 0, "codex: Installed (" + hooks + "): untrusted: 11 of 11"},
		{[]string{"status", "--hook", "/elsewhere/ag-hook", "--agent", "codex"}, 1, "codex: Needs repair"},
		{[]string{"uninstall", "--agent", "claude"}, 0, "claude: hooks removed from"},
		{[]string{"status"}, 0, "claude: Not installed"},
		{[]string{"uninstall", "--agent", "codex"}, 0, "codex: hooks removed from"},
		{[]string{"status"}, 1, "codex: Not installed"},
	}
	for _, s := range steps {
		r := try(t, env, "", s.args...)
		if r.code != s.code || r.stderr != "" || !strings.Contains(r.stdout, s.out+"\n") && !strings.Contains(r.stdout, s.out) {
			t.Fatalf("ag-hook %q: %+v\nwant code %d and %q", s.args, r, s.code, s.out)
		}
	}
	if b, _ := os.ReadFile(settings); string(b) != orig {
		t.Errorf("after the round trip:\n%s\nwant\n%s", b, orig)
	}

	// CLAUDE_CONFIG_DIR wins over HOME.
	cfg := t.TempDir()
	r := try(t, map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": cfg}, "", "install", "--agent", "claude")
	if r.code != 0 || !strings.Contains(r.stdout, filepath.Join(cfg, "settings.json")) {
		t.Errorf("CLAUDE_CONFIG_DIR: %+v", r)
	}

	// A file it cannot parse: exit 2, named, untouched.
	bad := "{\"model\": \"opus\",\n"
	os.WriteFile(settings, []byte(bad), 0o600)
	for _, args := range [][]string{{"install", "--agent", "claude"}, {"uninstall", "--agent", "claude"}, {"status"}} {
		r := try(t, env, "", args...)
		// status goes on to the other agents: only claude's line is missing.
		if r.code != 2 || !strings.Contains(r.stderr, settings) || strings.Contains(r.stdout, "claude:") {
			t.Errorf("ag-hook %q on a broken file: %+v", args, r)
		}
	}
	if b, _ := os.ReadFile(settings); string(b) != bad {
		t.Errorf("broken file touched: %q", b)
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
