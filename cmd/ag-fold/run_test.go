package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/fold"
	"github.com/agwatch/ag/filters/state"
)

// lockedBuffer is a bytes.Buffer a test may read while the run writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func line(kind, src, sec string, extra string) string { return sline("s1", kind, src, sec, extra) }

// sline is one event of session at second sec of 12:00.
func sline(session, kind, src, sec string, extra string) string {
	return fmt.Sprintf(`{"v":1,"t":"2026-05-01T12:00:%sZ","kind":%q,"agent":"claude","session":%q,"src":%q,"id":"%s-%s-%s-%s"%s}`+"\n",
		sec, kind, session, src, session, kind, src, sec, extra)
}

type result struct {
	code           int
	stdout, stderr string
	states         []event.Event
}

func runFold(t *testing.T, dir string, stdin io.Reader, alive func(fold.Proc) bool, args ...string) result {
	t.Helper()
	var stdout, stderr lockedBuffer
	env := map[string]string{"AG_DIR": dir}
	f := newFolder(&stdout, &stderr, func(k string) string { return env[k] }, time.Now)
	if alive != nil {
		f.alive = alive
	}
	code := f.main(context.Background(), args, stdin)
	r := result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if l == "" {
			continue
		}
		var e event.Event
		if err := event.Decode([]byte(l), &e); err != nil {
			t.Fatalf("stdout line %q: %v", l, err)
		}
		if e.Kind == event.State {
			r.states = append(r.states, e)
		}
	}
	return r
}

// follower is ag-fold following a pipe, as in the login pipeline, in this
// process: what it writes, and its exit code once the pipe is closed.
type follower struct {
	dir            string // its $AG_DIR
	in             *io.PipeWriter
	stdout, stderr lockedBuffer
	done           chan int
}

// follow starts ag-fold with args; setup may swap the folder's checks first.
func follow(t *testing.T, setup func(*folder), args ...string) *follower {
	t.Helper()
	pr, pw := io.Pipe()
	fl := &follower{dir: t.TempDir(), in: pw, done: make(chan int)}
	f := newFolder(&fl.stdout, &fl.stderr, func(k string) string { return map[string]string{"AG_DIR": fl.dir}[k] }, time.Now)
	if setup != nil {
		setup(f)
	}
	go func() { fl.done <- f.main(context.Background(), args, pr) }()
	return fl
}

// waitOut waits until ok holds for all ag-fold wrote, failing after within.
func (fl *follower) waitOut(t *testing.T, what string, within time.Duration, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok(fl.stdout.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s; stdout:\n%s\nstderr:\n%s", what, within, fl.stdout.String(), fl.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// close ends the input and returns ag-fold's exit code.
func (fl *follower) close() int {
	fl.in.Close()
	return <-fl.done
}

func TestFollow(t *testing.T) {
	in := line("turn.start", "hook", "01.000", `,"run":"p1","pane":"%1","text":"hi"`) +
		"not json\n" +
		line("wait", "hook", "02.000", `,"attention":"permission","tool":"Bash","text":"ls"`) +
		line("wait", "hook", "02.000", `,"attention":"permission","tool":"Bash","text":"ls"`) // duplicate id
	dir := t.TempDir()
	r := runFold(t, dir, strings.NewReader(in), nil)
	if r.code != cli.ExitError {
		t.Errorf("exit %d, want %d for a malformed line", r.code, cli.ExitError)
	}
	if want := "ag-fold: <stdin>:2: byte 0: not a JSON object\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if len(r.states) != 2 || r.states[0].Status != "working" || r.states[1].Status != "waiting" || r.states[1].Tool != "Bash" {
		t.Fatalf("states: %s", r.stdout)
	}
	saved, err := savedStates(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) != 1 || saved[0].Token != r.states[1].Token || saved[0].Status != "waiting" {
		t.Errorf("state file %+v, want the last state", saved)
	}
}

func TestPassAndNoState(t *testing.T) {
	in := line("turn.start", "hook", "01.000", `,"x_custom":[1,2]`)
	dir := t.TempDir()
	r := runFold(t, dir, strings.NewReader(in), nil, "--pass", "--no-state")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || lines[0]+"\n" != in || len(r.states) != 1 {
		t.Errorf("--pass: exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "state.json")); !os.IsNotExist(err) {
		t.Errorf("--no-state wrote the state file (%v)", err)
	}
}

// TestDeadProcess: while stdin stays open, the check finds the dead pid and
// the session turns gone; the live one stays.
func TestDeadProcess(t *testing.T) {
	fl := follow(t, func(f *folder) { f.alive = func(p fold.Proc) bool { return p.PID != 2147000001 } }, "--check", "20ms")
	dir := fl.dir
	io.WriteString(fl.in, line("session.start", "hook", "01.000", `,"pid":2147000001`))
	io.WriteString(fl.in, sline("s2", "session.start", "hook", "01.000", `,"pid":1`))
	deadline := time.Now().Add(5 * time.Second)
	fl.waitOut(t, "gone state", 5*time.Second, func(s string) bool { return strings.Contains(s, `"status":"gone"`) })
	// the state file follows without waiting for the end of input
	for {
		saved, _ := savedStates(filepath.Join(dir, "state.json"))
		if len(saved) == 2 && saved[0].Status == "gone" && saved[1].Status == "idle" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("state file not updated: %+v", saved)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code := fl.close(); code != 0 {
		t.Errorf("exit %d; stderr %s", code, fl.stderr.String())
	}
	if n := strings.Count(fl.stdout.String(), `"status":"gone"`); n != 1 {
		t.Errorf("%d gone states, want 1 (a dead process is reported once)", n)
	}
}

func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	in := line("turn.start", "hook", "01.000", "") + line("wait", "hook", "02.000", `,"attention":"question"`) +
		sline("s2", "turn.end", "hook", "03.000", "")
	r := runFold(t, dir, strings.NewReader(in), nil, "--snapshot", "--where", `.status=="waiting"`)
	if r.code != 0 || len(r.states) != 1 || r.states[0].Session != "s1" || r.states[0].Attention != "question" {
		t.Errorf("snapshot from stdin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "state.json")); !os.IsNotExist(err) {
		t.Errorf("--snapshot wrote the state file")
	}
	r = runFold(t, dir, nil, nil, "--snapshot")
	if r.code != cli.ExitNoMatch || !strings.Contains(r.stderr, "no state file at ") {
		t.Errorf("snapshot without a state file: exit %d, stderr %q", r.code, r.stderr)
	}
	runFold(t, dir, strings.NewReader(in), nil) // writes the file
	r = runFold(t, dir, nil, nil, "--snapshot")
	if r.code != 0 || len(r.states) != 2 {
		t.Errorf("snapshot from the file (no stdin): exit %d\n%s", r.code, r.stdout)
	}
	r = runFold(t, dir, nil, nil, "--snapshot", "--where", `.status=="failed"`)
	if r.code != cli.ExitNoMatch || r.stdout != "" {
		t.Errorf("snapshot matching nothing: exit %d, stdout %q", r.code, r.stdout)
	}
	// An empty pipe is an answer: nothing came, nothing to show — not the
	// state file (ag-tail --once | ag-fold --snapshot that found nothing).
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r = runFold(t, dir, pr, nil, "--snapshot")
	pr.Close()
	if r.code != cli.ExitNoMatch || r.stdout != "" || r.stderr != "" {
		t.Errorf("snapshot from an empty pipe: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// /dev/null, as tmux's #() and services give it: the state file.
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if r = runFold(t, dir, null, nil, "--snapshot"); r.code != 0 || len(r.states) != 2 {
		t.Errorf("snapshot with /dev/null on stdin: exit %d\n%s", r.code, r.stdout)
	}
}

func TestArgs(t *testing.T) {
	r := runFold(t, t.TempDir(), strings.NewReader(""), nil, "extra")
	if r.code != cli.ExitError || !strings.HasPrefix(r.stderr, "ag-fold: unexpected argument") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
	r = runFold(t, t.TempDir(), strings.NewReader(""), nil, "--where", "(")
	if r.code != cli.ExitError || !strings.HasPrefix(r.stderr, "ag-fold: --where") {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
}

func TestAlive(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	p := fold.Proc{PID: cmd.Process.Pid, Seen: time.Now().Add(time.Second)}
	if !alive(p) {
		t.Errorf("running sleep %d reported dead", p.PID)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if alive(p) {
		t.Errorf("killed sleep %d reported alive", p.PID)
	}
	if alive(fold.Proc{PID: 2147000001}) {
		t.Errorf("impossible pid reported alive")
	}
	if _, _, ok := procStat(os.Getpid()); ok {
		// a session that named this pid an hour before this process began
		// was another process's: the pid has been reused
		if alive(fold.Proc{PID: os.Getpid(), Seen: time.Now().Add(-time.Hour)}) {
			t.Errorf("pid reuse not detected")
		}
	}
}

// TestOtherHostNotChecked: at the end of input the pids are checked, but
// only this host's: a session of devbox whose pid does not run here stays.
func TestOtherHostNotChecked(t *testing.T) {
	var stdout, stderr lockedBuffer
	env := func(k string) string { return map[string]string{"AG_DIR": t.TempDir(), "AG_HOST": "laptop"}[k] }
	f := newFolder(&stdout, &stderr, env, time.Now)
	now := time.Now().UTC().Format(event.Layout)
	in := `{"v":1,"t":"` + now + `","kind":"session.start","agent":"claude","session":"a","src":"hook","pid":2147000001,"host":"devbox"}
{"v":1,"t":"` + now + `","kind":"session.start","agent":"claude","session":"b","src":"hook","pid":2147000001}
`
	if code := f.main(context.Background(), []string{"--no-state"}, strings.NewReader(in)); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, `"host":"laptop","status":"gone"`) {
		t.Errorf("this host's dead pid is not gone:\n%s", out)
	}
	if strings.Contains(out, `"host":"devbox","status":"gone"`) {
		t.Errorf("devbox's pid was judged here:\n%s", out)
	}
}

// TestStateFileFollows: with stdin still open, the state file catches up
// with each change within the debounce.
func TestStateFileFollows(t *testing.T) {
	pr, pw := io.Pipe()
	var stdout, stderr lockedBuffer
	dir := t.TempDir()
	f := newFolder(&stdout, &stderr, func(k string) string { return map[string]string{"AG_DIR": dir}[k] }, time.Now)
	done := make(chan int)
	go func() { done <- f.main(context.Background(), []string{"--check", "0", "--debounce", "50ms"}, pr) }()
	waitFor := func(status string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			saved, _ := savedStates(filepath.Join(dir, "state.json"))
			if len(saved) == 1 && saved[0].Status == status {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("state file never said %s: %+v", status, saved)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	io.WriteString(pw, line("turn.start", "hook", "01.000", ""))
	waitFor("working")
	io.WriteString(pw, line("wait", "hook", "01.100", `,"attention":"plan"`))
	waitFor("waiting")
	io.WriteString(pw, line("turn.end", "hook", "01.200", ""))
	waitFor("done")
	pw.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\n"); n != 3 {
		t.Errorf("%d states written, want 3:\n%s", n, stdout.String())
	}
}

// TestNoStallOnBlankOrHalfLine: in follow mode the states of the events
// read so far are written at once, whatever follows them in the buffer — a
// blank line, a broken one, or half of the next line — instead of waiting
// for more input.
func TestNoStallOnBlankOrHalfLine(t *testing.T) {
	for _, tail := range []string{"\n", "\n\n  \n", "not json\n", `{"v":1,"t":"2026-05-01T12:00:0`} {
		fl := follow(t, nil, "--check", "0")
		io.WriteString(fl.in, line("turn.start", "hook", "01.000", "")+tail)
		fl.waitOut(t, fmt.Sprintf("state after %q", tail), 2*time.Second, func(s string) bool { return strings.Contains(s, `"status":"working"`) })
		fl.close()
	}
}

// savedStates is what ag-fold wrote into the state file, as written (the
// tests' clock is not the kernel's: a reader's judgment would not hold).
func savedStates(path string) ([]event.Event, error) {
	f, err := state.Load(path)
	if err != nil {
		return nil, err
	}
	return f.Sessions, nil
}

// TestKeeper: a following ag-fold makes the state file its own at once,
// even before any state, and confirms it every --check while nothing
// changes, so readers can tell it from a file left behind; a file another
// running ag-fold keeps is not overwritten.
func TestKeeper(t *testing.T) {
	fl := follow(t, nil, "--check", "50ms")
	path := filepath.Join(fl.dir, "state.json")
	var first time.Time
	deadline := time.Now().Add(5 * time.Second)
	for {
		f, err := state.Load(path)
		if err == nil && f.Writer.PID == os.Getpid() && f.Writer.Check == 50*time.Millisecond {
			if first.IsZero() {
				first = f.Confirmed
			} else if f.Confirmed.After(first) {
				break // touched again with nothing to write
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("state file not kept and confirmed: %+v %v", f, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if cur, why := state.Here().Current(mustLoad(t, path)); !cur {
		t.Errorf("a reader finds the running ag-fold's file not current: %s", why)
	}
	if code := fl.close(); code != 0 {
		t.Errorf("exit %d: %s", code, fl.stderr.String())
	}

	// Another ag-fold (a running process: sleep) keeps the file.
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	kept := state.Writer{PID: other.Process.Pid, Start: time.Now()}
	if err := state.Write(path, time.Now(), kept, nil); err != nil {
		t.Fatal(err)
	}
	r := runFold(t, fl.dir, strings.NewReader(line("turn.start", "hook", "01.000", "")), nil)
	if r.code != 0 || !strings.Contains(r.stderr, "is kept by another ag-fold (pid ") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if f := mustLoad(t, path); f.Writer.PID != kept.PID || len(f.Sessions) != 0 {
		t.Errorf("the other ag-fold's file was overwritten: %+v", f)
	}
}

func mustLoad(t *testing.T, path string) *state.File {
	t.Helper()
	f, err := state.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
