package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// Built once by TestMain: the test notification server, and ag-notify
// itself for the tmux popup to run.
var notifydBin, agNotifyBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ag-notify-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "github.com/agwatch/ag/t/notifyd", "github.com/agwatch/ag/cmd/ag-notify")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building t/notifyd:", err)
		os.Exit(2)
	}
	notifydBin, agNotifyBin = filepath.Join(dir, "notifyd"), filepath.Join(dir, "ag-notify")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// shortDir is a temp dir with a path short enough for unix sockets.
func shortDir(t testing.TB) string {
	d, err := os.MkdirTemp("", "agn")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// bus is a private session bus with the test notification server on it.
type bus struct {
	addr, log, ctl string
	daemon         *exec.Cmd
}

func startBus(t testing.TB, caps string) *bus {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("dbus-daemon not installed")
	}
	dir := shortDir(t)
	d := exec.Command("dbus-daemon", "--session", "--nofork", "--address=unix:path="+dir+"/bus", "--print-address=1")
	out, err := d.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// (dbus-daemon's stderr is left out: it complains about fd limits.)
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Process.Kill(); d.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon: %v", err)
	}
	b := &bus{addr: strings.TrimSpace(addr), log: dir + "/calls.ndjson", ctl: dir + "/ctl", daemon: d}
	if caps == "" {
		return b // a bus with nobody serving notifications
	}
	s := exec.Command(notifydBin, "-log", b.log, "-ctl", b.ctl, "-caps", caps, "-ready", dir+"/ready")
	s.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS="+b.addr)
	s.Stderr = os.Stderr
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Process.Signal(syscall.SIGTERM); s.Wait() })
	waitFor(t, 5*time.Second, "notifyd ready", func() bool { _, err := os.Stat(dir + "/ready"); return err == nil })
	return b
}

// call is one line of notifyd's log.
type call struct {
	TNs      int64          `json:"t_ns"`
	Call     string         `json:"call"`
	ID       uint32         `json:"id"`
	Replaces uint32         `json:"replaces"`
	Summary  string         `json:"summary"`
	Body     string         `json:"body"`
	Actions  []string       `json:"actions"`
	Hints    map[string]any `json:"hints"`
}

func (b *bus) calls(t testing.TB) []call {
	t.Helper()
	data, err := os.ReadFile(b.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var cs []call
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l == "" {
			continue
		}
		var c call
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("notifyd log: %v: %s", err, l)
		}
		cs = append(cs, c)
	}
	return cs
}

func (b *bus) waitCalls(t testing.TB, n int) []call {
	t.Helper()
	var cs []call
	waitFor(t, 5*time.Second, fmt.Sprintf("%d notifyd calls", n), func() bool { cs = b.calls(t); return len(cs) >= n })
	return cs
}

// press sends a control command to notifyd ("action last approve").
func (b *bus) press(t testing.TB, cmd string) {
	t.Helper()
	c, err := net.Dial("unix", b.ctl)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintln(c, cmd)
	ans, _ := bufio.NewReader(c).ReadString('\n')
	if strings.TrimSpace(ans) != "ok" {
		t.Fatalf("notifyd %q: %s", cmd, ans)
	}
}

func waitFor(t testing.TB, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// proc is ag-notify's run in this process, fed through a pipe.
type proc struct {
	t      testing.TB
	c      *cmd
	stdin  *io.PipeWriter
	out    chan event.Event
	stderr *syncBuf
	code   chan int
	cancel context.CancelFunc
}

func start(t testing.TB, env map[string]string, args ...string) *proc {
	t.Helper()
	pr, pw := io.Pipe()
	or, ow := io.Pipe()
	p := &proc{t: t, stdin: pw, out: make(chan event.Event, 1024), stderr: &syncBuf{}, code: make(chan int, 1)}
	c := newCmd(ow, p.stderr, func(k string) string { return env[k] })
	c.self = agNotifyBin
	p.c = c
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() { p.code <- c.main(ctx, args, pr); ow.Close() }()
	go func() {
		sc := bufio.NewScanner(or)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e event.Event
			if err := event.Decode(sc.Bytes(), &e); err != nil {
				t.Errorf("ag-notify wrote a bad line %q: %v", sc.Text(), err)
				continue
			}
			p.out <- e
		}
		close(p.out)
	}()
	t.Cleanup(func() { cancel(); pw.Close() })
	return p
}

func (p *proc) send(es ...event.Event) {
	for i := range es {
		if _, err := p.stdin.Write(event.AppendJSON(nil, &es[i])); err != nil {
			p.t.Fatal(err)
		}
	}
}

// next returns the next output event of kind, skipping the rest.
func (p *proc) next(kind string) event.Event {
	p.t.Helper()
	e, ok := p.within(kind, 5*time.Second)
	if !ok {
		p.t.Fatalf("no %s event in 5s; stderr:\n%s", kind, p.stderr)
	}
	return e
}

// within is next with a timeout of d: false when none came.
func (p *proc) within(kind string, d time.Duration) (event.Event, bool) {
	p.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case e, ok := <-p.out:
			if !ok {
				p.t.Fatalf("output ended waiting for a %s event; stderr:\n%s", kind, p.stderr)
			}
			if e.Kind == kind {
				return e, true
			}
		case <-timeout:
			return event.Event{}, false
		}
	}
}

// stop closes stdin and returns the exit code and every event still written.
func (p *proc) stop() (int, []event.Event) {
	p.t.Helper()
	p.stdin.Close()
	var rest []event.Event
	for e := range p.out {
		rest = append(rest, e)
	}
	select {
	case c := <-p.code:
		return c, rest
	case <-time.After(10 * time.Second):
		p.t.Fatal("ag-notify did not end after EOF")
	}
	return 0, nil
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// state is a fresh state event of session sess in pane %77.
func state(sess, status, attn, token string) event.Event {
	e := event.New(event.State, time.Now(), "claude", sess)
	e.Src, e.Status, e.Attention, e.Token = event.SrcFold, status, attn, token
	e.Pane, e.Cwd, e.Branch, e.Prompt = "%77", "/home/u/src/ag", "main", "tidy up"
	switch attn {
	case event.AttnPermission:
		e.Tool, e.Text = "Bash", "rm -rf build"
	case event.AttnQuestion:
		e.Tool, e.Text = "AskUserQuestion", "Which database?"
	case event.AttnPlan:
		e.Tool, e.Text = "ExitPlanMode", "1. read\n2. write"
	}
	e.ID = event.MakeID(event.SrcFold, sess, token)
	return e
}
