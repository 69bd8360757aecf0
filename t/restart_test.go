package t

import (
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// pipeline is `ag-tail --follow | ag-fold` as the login service runs it,
// with ag-tail's output also kept in tailOut.
type pipeline struct {
	tail, fold *exec.Cmd
	copied     chan struct{}
}

func startPipeline(t *testing.T, env []string, tailOut io.Writer) *pipeline {
	t.Helper()
	p := &pipeline{copied: make(chan struct{})}
	p.tail = exec.Command(filepath.Join(binDir, "ag-tail"), "--follow")
	p.fold = exec.Command(filepath.Join(binDir, "ag-fold"), "--check", "0")
	for _, c := range []*exec.Cmd{p.tail, p.fold} {
		c.Env = append(os.Environ(), env...)
		c.Stderr = os.Stderr
	}
	tr, err := p.tail.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	fw, err := p.fold.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.fold.Start(); err != nil {
		t.Fatal(err)
	}
	if err := p.tail.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { // the pipe between them
		defer close(p.copied)
		io.Copy(io.MultiWriter(fw, tailOut), tr)
		fw.Close()
	}()
	return p
}

// kill stops the pipeline: SIGKILL to both (or to one, the other then
// ending as it does when its neighbour dies), as a crash or the OOM killer.
func (p *pipeline) kill(which int) {
	switch which {
	case 0:
		p.tail.Process.Signal(syscall.SIGKILL)
		p.fold.Process.Signal(syscall.SIGKILL)
	case 1:
		p.tail.Process.Signal(syscall.SIGKILL)
	case 2:
		p.fold.Process.Signal(syscall.SIGKILL)
		p.tail.Process.Signal(syscall.SIGTERM)
	}
	p.tail.Wait()
	<-p.copied
	p.fold.Wait()
}

// TestRestartNothingLostOrDoubled: agents write bursts of lines (some in
// two writes, a pause between) while the pipeline is killed at random
// moments and started again; at the end every session's tokens are what
// its transcript holds, each response counted once.
func TestRestartNothingLostOrDoubled(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	projects := filepath.Join(home, "claude", "projects", "-w")
	os.MkdirAll(projects, 0o755)
	ag := filepath.Join(home, ".ag")
	env := []string{"HOME=" + home, "AG_DIR=" + ag, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, "claude"), "CODEX_HOME=" + home + "/codex"}

	const sessions = 4
	type sess struct {
		id         string
		f          *os.File
		out, cache int64 // what its meters add up to
	}
	var ss []*sess
	for i := range sessions {
		id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
		f, err := os.Create(filepath.Join(projects, id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ss = append(ss, &sess{id: id, f: f})
	}
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	n := 0
	r := rand.New(rand.NewPCG(1, 2))
	var mu sync.Mutex
	write := func() { // one turn of one session
		mu.Lock()
		defer mu.Unlock()
		s := ss[r.IntN(sessions)]
		var b strings.Builder
		at = at.Add(time.Second)
		fmt.Fprintf(&b, `{"isSidechain":false,"promptId":"p%d","type":"user","message":{"role":"user","content":"go %d"},"uuid":"u%d","timestamp":"%s"}`+"\n",
			n, n, n, at.Format(event.Layout))
		for k := range 1 + r.IntN(4) {
			n++
			stop := "tool_use"
			if k == 0 {
				stop = "end_turn"
			}
			at = at.Add(time.Second)
			fmt.Fprintf(&b, `{"isSidechain":false,"message":{"model":"claude-opus-4-6","id":"msg%d","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"%s","usage":{"input_tokens":1,"cache_read_input_tokens":%d,"output_tokens":1}},"requestId":"r%d","type":"assistant","uuid":"v%d","timestamp":"%s"}`+"\n",
				n, stop, n, n, n, at.Format(event.Layout))
			s.out++
			s.cache += int64(n)
		}
		line := b.String()
		if r.IntN(3) == 0 { // half a line first: a kill may come between
			cut := r.IntN(len(line))
			s.f.WriteString(line[:cut])
			mu.Unlock()
			time.Sleep(time.Duration(r.IntN(30)) * time.Millisecond)
			mu.Lock()
			line = line[cut:]
		}
		s.f.WriteString(line)
	}

	restarts(t, env, ag, write, func(states []event.Event) (bool, string) {
		ok := len(states) == sessions
		var got []string
		for _, st := range states {
			for _, s := range ss {
				if st.Session == s.id && st.Tokens != nil {
					if st.Tokens.Out != s.out || st.Tokens.CacheRead != s.cache {
						ok = false
					}
					got = append(got, fmt.Sprintf("%s out %d/%d cache %d/%d %s", s.id[:8], st.Tokens.Out, s.out, st.Tokens.CacheRead, s.cache, st.Status))
				}
			}
		}
		return ok, strings.Join(got, "\n")
	}, nil)
	t.Logf("%d responses", n)
}

// restarts runs write (one burst of lines) again and again while the
// pipeline is killed at random moments and started again (8 times), then
// starts it a last time and waits until the state file satisfies done,
// and checks those states are what a full replay folds, field for field
// (but what same, if not nil, clears in both), and that most restarts
// went on from ag-tail's cursor.
func restarts(t *testing.T, env []string, ag string, write func(), done func([]event.Event) (bool, string), same func(*event.Event)) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	var tailOut strings.Builder
	var outMu sync.Mutex
	out := writerFunc(func(b []byte) (int, error) { outMu.Lock(); defer outMu.Unlock(); return tailOut.Write(b) })
	stopWriting := make(chan struct{})
	writing := make(chan struct{})
	go func() {
		defer close(writing)
		for {
			select {
			case <-stopWriting:
				return
			default:
			}
			for range 1 + rand.IntN(20) { // a burst
				write()
			}
			time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
		}
	}()
	resumed := 0
	for cycle := range 8 {
		outMu.Lock()
		tailOut.Reset()
		outMu.Unlock()
		p := startPipeline(t, env, out)
		time.Sleep(time.Duration(300+r.IntN(1500)) * time.Millisecond)
		p.kill(cycle % 3)
		outMu.Lock()
		if strings.HasPrefix(tailOut.String(), `{"v":1,"t":`) && strings.Contains(strings.SplitN(tailOut.String(), "\n", 3)[0], `"kind":"mark"`) {
			resumed++
		}
		outMu.Unlock()
		time.Sleep(time.Duration(r.IntN(300)) * time.Millisecond) // down a while, agents writing on
	}
	close(stopWriting)
	<-writing

	// The last start catches up with everything written.
	p := startPipeline(t, env, io.Discard)
	defer p.kill(0)
	deadline := time.Now().Add(60 * time.Second)
	for {
		states, err := state.Read(filepath.Join(ag, "state.json"))
		ok, got := err == nil, ""
		if ok {
			ok, got = done(states)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions' tokens (got/want):\n%s", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// And the states are those a full replay folds, field for field.
	var snap strings.Builder
	tail := exec.Command(filepath.Join(binDir, "ag-tail"), "--once")
	fold := exec.Command(filepath.Join(binDir, "ag-fold"), "--snapshot", "--check", "0")
	tail.Env = append(os.Environ(), env...)
	fold.Env = tail.Env
	fold.Stdin, _ = tail.StdoutPipe()
	fold.Stdout, fold.Stderr = &snap, os.Stderr
	tail.Stderr = os.Stderr
	tail.Start()
	if err := fold.Run(); err != nil {
		t.Fatal(err)
	}
	tail.Wait()
	live, _ := state.Read(filepath.Join(ag, "state.json"))
	for i, line := range strings.Split(strings.TrimSpace(snap.String()), "\n") {
		var want event.Event
		event.Decode([]byte(line), &want)
		got := live[i]
		got.ID, want.ID, got.Extra = "", "", nil
		if same != nil {
			same(&got)
			same(&want)
		}
		if g, w := string(event.AppendJSON(nil, &got)), string(event.AppendJSON(nil, &want)); g != w {
			t.Errorf("after the restarts:\n%s\na full replay:\n%s", g, w)
		}
	}
	if resumed < 3 {
		t.Errorf("only %d of 8 restarts went on from the cursor", resumed)
	}
	t.Logf("%d of 8 restarts went on from the cursor", resumed)
}

// checkpointsKept checks that tail.cursor ("v … <state, base64> <path>"
// lines) holds a parser's own checkpoint, one with want in it, for some
// file whose path has file in it.
func checkpointsKept(t *testing.T, ag, file, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ag, "tail.cursor"))
	kept := 0
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 9 && f[0] == "v" && strings.Contains(l, file) {
			if st, err := base64.RawStdEncoding.DecodeString(f[9]); err == nil && strings.Contains(string(st), want) {
				kept++
			}
		}
	}
	if err != nil || kept == 0 {
		t.Errorf("tail.cursor holds no checkpoint of a %s file: %v\n%.2000s", file, err, b)
	}
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(b []byte) (int, error) { return w(b) }
