package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
)

func TestPassThrough(t *testing.T) {
	now := time.Now().UTC().Format(event.Layout)
	in := `{"v":1,"t":"` + now + `","kind":"turn.start","agent":"claude","session":"a","src":"hook","future":{"x":[1,2]}}
not json
{"v":1,"t":"` + now + `","kind":"state","agent":"claude","session":"a","src":"fold","status":"working","token":"1.1"}

{"v":9,"t":"` + now + `","kind":"state","session":"a"}
{"v":1,"t":"` + now + `","kind":"meter","agent":"claude","session":"a","src":"log","model":"m"}
`
	var out, errb strings.Builder
	dir := t.TempDir()
	code := newCmd(&out, &errb, func(string) string { return "" }).main(t.Context(), []string{"--exec", "touch " + dir + "/ran"}, strings.NewReader(in))
	if code != cli.ExitError {
		t.Errorf("exit %d; want 2: two lines were not events (reported, the stream went on)", code)
	}
	var want []string
	for _, l := range strings.Split(in, "\n") {
		if strings.Contains(l, `"v":1`) {
			want = append(want, l)
		}
	}
	if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stdout:\n%s\nwant the valid lines unchanged:\n%s", out.String(), strings.Join(want, "\n"))
	}
	wantErr := "ag-notify: <stdin>:2: "
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], wantErr) || !strings.HasPrefix(lines[1], "ag-notify: <stdin>:5: unsupported protocol version 9") {
		t.Errorf("stderr = %q; want the two bad lines named", lines)
	}
	if _, err := os.Stat(dir + "/ran"); err == nil {
		t.Error("a working state notified")
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{[]string{"--help"}, 0, "Usage:", ""},
		{[]string{"--backend", "pigeon"}, 2, "", `ag-notify: unknown backend "pigeon"`},
		{[]string{"--backend", "exec"}, 2, "", "ag-notify: --backend exec needs --exec CMD"},
		{[]string{"--ntfy", "ftp://x/y"}, 2, "", "want an http(s) topic URL"},
		{[]string{"extra"}, 2, "", `unexpected argument "extra"`},
	}
	for _, tc := range tests {
		var out, errb strings.Builder
		code := newCmd(&out, &errb, func(string) string { return "" }).main(t.Context(), tc.args, strings.NewReader(""))
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("ag-notify %q = %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, out.String(), errb.String(), tc.code, tc.out, tc.err)
		}
	}
}

// execRecord is what the test's --exec command saw.
type execRecord struct {
	Op      string `json:"op"`
	Kind    string `json:"kind"`
	Session string `json:"session"`
	Title   string `json:"title"`
	Body    string `json:"body"`
	Token   string `json:"token"`
	Env     string
}

// execCmd appends the stdin JSON line and the AG_* variables to files in dir.
func execCmd(dir string) string {
	return `cat >> ` + dir + `/json; printf '%s|%s|%s|%s\n' "$AG_OP" "$AG_KIND" "$AG_SESSION" "$AG_TITLE" >> ` + dir + `/env`
}

func execRecords(t *testing.T, dir string) []execRecord {
	t.Helper()
	j, _ := os.ReadFile(dir + "/json")
	env, _ := os.ReadFile(dir + "/env")
	var rs []execRecord
	envs := strings.Split(strings.TrimSpace(string(env)), "\n")
	for i, l := range strings.Split(strings.TrimSpace(string(j)), "\n") {
		if l == "" {
			continue
		}
		var r execRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("exec stdin %q: %v", l, err)
		}
		if i < len(envs) {
			r.Env = envs[i]
		}
		rs = append(rs, r)
	}
	return rs
}

func TestExecBackend(t *testing.T) {
	dir := t.TempDir()
	p := start(t, nil, "--exec", execCmd(dir), "-S", shortDir(t)+"/no-tmux", "--debounce", "50ms")
	working := state("s1", "working", "", "1.1") // first: a state older than the last is dropped
	w := state("s1", "waiting", "permission", "2.2")
	w.Text = `$(touch ` + dir + `/pwned) ; touch ` + dir + `/pwned2`
	p.send(working, w)
	d := p.next(event.Notify)
	if d.Backend != "exec" || d.Action != "deliver" {
		t.Errorf("notify event = %+v", d)
	}
	p.send(state("s1", "working", "", "3.3"))
	if r := p.next(event.Notify); r.Action != "retract" {
		t.Errorf("after resolution: %+v; want a retract", r)
	}
	// A finished turn, debounced, then history that must stay quiet.
	p.send(state("s1", "done", "", "4.4"))
	p.next(event.Notify)
	old := state("s2", "waiting", "question", "5.5")
	old.T = event.At(time.Now().Add(-11 * time.Second))
	p.send(old)
	if code, rest := p.stop(); code != 0 || len(rest) != 1 {
		t.Errorf("exit %d, rest %v; want 0 and the old state passed through", code, rest)
	}
	rs := execRecords(t, dir)
	want := []string{
		"deliver|waiting|s1|Claude Code · ag:main",
		"retract|waiting|s1|Claude Code · ag:main",
		"deliver|done|s1|Claude Code · ag:main",
	}
	if len(rs) != len(want) {
		t.Fatalf("exec ran %d times (%+v); want %d", len(rs), rs, len(want))
	}
	for i, r := range rs {
		if r.Env != want[i] {
			t.Errorf("run %d env %q; want %q", i, r.Env, want[i])
		}
	}
	if rs[0].Op != "deliver" || rs[0].Token != "2.2" || !strings.Contains(rs[0].Body, "$(touch") {
		t.Errorf("stdin JSON = %+v", rs[0])
	}
	if rs[2].Body != "tidy up" {
		t.Errorf("done body = %q; want the last prompt", rs[2].Body)
	}
	for _, f := range []string{"pwned", "pwned2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the agent's text ran as a command (%s exists)", f)
		}
	}
}

// ntfyServer is a real HTTP server on 127.0.0.1 that answers like ntfy.
type ntfyServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []ntfyReq
}

type ntfyReq struct {
	path, title, prio, tags, auth, body string
}

func newNtfyServer(t *testing.T) *ntfyServer {
	s := &ntfyServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, ntfyReq{r.URL.Path, r.Header.Get("Title"), r.Header.Get("Priority"), r.Header.Get("Tags"), r.Header.Get("Authorization"), string(b)})
		s.mu.Unlock()
		io.WriteString(w, `{"id":"abc123","time":1,"event":"message","topic":"t"}`)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestNtfyBackend(t *testing.T) {
	s := newNtfyServer(t)
	p := start(t, map[string]string{"AG_NTFY_TOKEN": "tk"}, "--ntfy", s.URL+"/agents", "--ntfy-token", "tk", "-S", shortDir(t)+"/no-tmux")
	p.send(state("s1", "waiting", "plan", "1.1"))
	d := p.next(event.Notify)
	if d.Backend != "ntfy" || d.Ref != "abc123" {
		t.Errorf("notify event = %+v; want ntfy ref abc123", d)
	}
	p.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) != 1 {
		t.Fatalf("%d requests; want 1", len(s.reqs))
	}
	r := s.reqs[0]
	// The title is not ASCII ("·"): RFC 2047 encoded.
	if r.path != "/agents" || r.title != "=?UTF-8?b?Q2xhdWRlIENvZGUgwrcgYWc6bWFpbg==?=" || r.prio != "high" ||
		r.tags != "ag,claude,waiting" || r.auth != "Bearer tk" || r.body != "Plan ready for review\n1. read\n2. write" {
		t.Errorf("request = %+v", r)
	}
}

// A dead ntfy URL costs one stderr line per delivery; the stream and the
// other backends go on.
func TestNtfyDeadWithExec(t *testing.T) {
	dir := t.TempDir()
	p := start(t, nil, "--ntfy", "http://127.0.0.1:1/topic", "--exec", execCmd(dir), "-S", shortDir(t)+"/no-tmux")
	in := []event.Event{state("s1", "waiting", "permission", "1.1"), state("s2", "waiting", "question", "1.1")}
	p.send(in...)
	p.next(event.Notify)
	p.next(event.Notify)
	code, _ := p.stop()
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(p.stderr.String()), "\n")
	// Two deliveries failed the same way: said once.
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "ag-notify: ntfy: deliver: ") || !strings.Contains(lines[0], "connection refused") {
		t.Errorf("stderr = %q; want one line for the two ntfy failures", lines)
	}
	if n := len(execRecords(t, dir)); n != 2 {
		t.Errorf("exec ran %d times; want 2 despite ntfy failing", n)
	}
}
