//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A hundred agents: 100 live sessions (20 of them waiting on the user)
// and 5,000 finished in the history.
const (
	liveSessions  = 100
	waitingOnes   = 20
	finishedCount = 5000
	foldLatency   = time.Millisecond      // median, a hook event to its state, in ag-fold
	hookToTmux    = 20 * time.Millisecond // median, ag-hook to the tmux option
)

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// history writes the finished sessions' and the live ones' events as the
// spool would hold them; the live ones in panes[i] with pids[i].
func history(w io.Writer, at time.Time, panes []string, pid int) time.Time {
	bw := bufio.NewWriter(w)
	for i := range finishedCount {
		s := fmt.Sprintf("f%07d-0000-4000-8000-000000000000", i)
		c := fmt.Sprintf(`"agent":"claude","session":%q,"src":"hook","cwd":"/home/dev/src/p%d"`, s, i%40)
		at = at.Add(time.Millisecond)
		fmt.Fprintf(bw, `{"v":1,"t":%q,"kind":"session.start",%s,"id":"fs%d"}`+"\n", ts(at), c, i)
		fmt.Fprintf(bw, `{"v":1,"t":%q,"kind":"turn.start",%s,"id":"ft%d","text":"fix the tests"}`+"\n", ts(at), c, i)
		fmt.Fprintf(bw, `{"v":1,"t":%q,"kind":"meter","agent":"claude","session":%q,"src":"log","id":"fm%d","model":"claude-opus-4-6","tokens":{"in":3,"out":300,"cache_read":40000,"cache_write":900},"context":{"used":41000,"size":200000}}`+"\n", ts(at), s, i)
		fmt.Fprintf(bw, `{"v":1,"t":%q,"kind":"turn.end",%s,"id":"fe%d"}`+"\n", ts(at), c, i)
	}
	for i := range liveSessions {
		s := fmt.Sprintf("l%07d-0000-4000-8000-000000000000", i)
		c := fmt.Sprintf(`"agent":"claude","session":%q,"src":"hook","pane":%q,"pid":%d,"cwd":"/home/dev/src/live%d"`, s, panes[i], pid, i)
		at = at.Add(time.Millisecond)
		fmt.Fprintf(bw, `{"v":1,"t":%q,"kind":"session.start",%s,"id":"ls%d"}`+"\n", ts(at), c, i)
		fmt.Fprintf(bw, `{"v":1,"t":%q,"kind":"turn.start",%s,"id":"lt%d","text":"build it"}`+"\n", ts(at), c, i)
		if i < waitingOnes {
			fmt.Fprintf(bw, `{"v":1,"t":%q,"kind":"wait",%s,"id":"lw%d","attention":"permission","tool":"Bash","text":"make deploy"}`+"\n", ts(at), c, i)
		}
	}
	bw.Flush()
	return at
}

func liveID(i int) string { return fmt.Sprintf("l%07d-0000-4000-8000-000000000000", i) }

// TestHundredFoldLatency: ag-fold with 5,000 finished and 100 live
// sessions (20 waiting) folds hook events of the live ones; each event's
// latency is from the write of its line into ag-fold's stdin to the read
// of its session's new state on stdout (the process is running: start-up
// is not in it), the state file written as usual (debounced).
func TestHundredFoldLatency(t *testing.T) {
	dir := t.TempDir()
	panes := make([]string, liveSessions)
	for i := range panes {
		panes[i] = fmt.Sprintf("%%%d", i)
	}
	fold := exec.Command(bin("ag-fold"), "--state", filepath.Join(dir, "state.json"), "--check", "0")
	in, _ := fold.StdinPipe()
	outR, _ := fold.StdoutPipe()
	fold.Stderr = os.Stderr
	if err := fold.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); fold.Wait() }()
	lines := make(chan []byte, 1024)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	var hist bytes.Buffer
	at := history(&hist, time.Now().Add(-2*time.Hour), panes, os.Getpid())
	written := make(chan error, 1)
	go func() { _, err := in.Write(hist.Bytes()); written <- err }()
	// Settled: the history is in, its states out, and the stream idles.
	for done, quiet := false, false; !done || !quiet; {
		select {
		case err := <-written:
			if err != nil {
				t.Fatal(err)
			}
			done = true
		case <-lines:
			quiet = false
		case <-time.After(500 * time.Millisecond):
			quiet = true
		}
	}

	const n = 2000
	r := rand.New(rand.NewPCG(1, 1))
	var lat []time.Duration
	tools := []string{"Bash", "Read", "Edit", "Grep"}
	open := map[int]int{} // session → the event that started its tool
	for i := range n {
		s := waitingOnes + r.IntN(liveSessions-waitingOnes) // the waiting ones wait on
		at = at.Add(time.Millisecond)
		// Each event changes its session's state: a tool starts, or the
		// one running ends.
		kind, call := "tool.start", i
		if c, ok := open[s]; ok {
			kind, call = "tool.end", c
			delete(open, s)
		} else {
			open[s] = i
		}
		line := fmt.Sprintf(`{"v":1,"t":%q,"kind":%q,"agent":"claude","session":%q,"src":"hook","id":"m%d","pane":%q,"tool":%q,"tool_id":"tu%d"}`+"\n",
			ts(at), kind, liveID(s), i, panes[s], tools[call%len(tools)], call)
		want := []byte(`"session":"` + liveID(s) + `"`)
		start := time.Now()
		if _, err := io.WriteString(in, line); err != nil {
			t.Fatal(err)
		}
		for got := false; !got; {
			select {
			case l := <-lines:
				got = bytes.Contains(l, want)
			case <-time.After(5 * time.Second):
				t.Fatalf("event %d: no state for %s", i, liveID(s))
			}
		}
		lat = append(lat, time.Since(start))
		time.Sleep(time.Duration(r.IntN(3)) * time.Millisecond) // hooks come apart, not in one burst
	}
	slices.Sort(lat)
	med, p90, p99 := lat[n/2], lat[n*9/10], lat[n*99/100]
	t.Logf("ag-fold, %d live sessions (%d waiting) and %d finished: a hook event's state out in median %s, p90 %s, p99 %s, max %s (n=%d)",
		liveSessions, waitingOnes, finishedCount, round(med), round(p90), round(p99), round(lat[n-1]), n)
	figure(fmt.Sprintf("ag-fold, %d live sessions (%d waiting), %d finished: hook event → its state, in-process (median; p90 / p99)", liveSessions, waitingOnes, finishedCount),
		fmt.Sprintf("**%s**; %s / %s", round(med), round(p90), round(p99)), "< 1 ms median", med < foldLatency)
	if med >= foldLatency {
		t.Errorf("median %s, budget %s", med, foldLatency)
	}
}

// tmuxServer is a private tmux server with n panes (one window each), each
// running sleep; it returns the socket and the panes' ids.
func tmuxServer(t *testing.T, n int) (sock string, panes []string, tm func(...string) string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	dir, err := os.MkdirTemp("", "agh")
	if err != nil {
		t.Fatal(err)
	}
	sock = filepath.Join(dir, "s")
	tm = func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tm("-f", "/dev/null", "new-session", "-d", "-s", "h", "-x", "80", "-y", "24", "sleep 3600")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run(); os.RemoveAll(dir) })
	for i := 1; i < n; i++ {
		tm("new-window", "-d", "-t", "h:", "sleep 3600")
	}
	panes = strings.Fields(tm("list-panes", "-s", "-t", "h", "-F", "#{pane_id}"))
	return sock, panes, tm
}

// TestHundredHookToTmux: the whole way, with the hundred agents' history:
// ag-hook claude (as Claude runs it) → the spool → ag-tail --follow →
// ag-fold --tmux → the pane's @ag_status in a private tmux server. Each
// figure includes up to one tmux poll (a client process asking).
func TestHundredHookToTmux(t *testing.T) {
	sock, panes, tm := tmuxServer(t, liveSessions)
	home := t.TempDir()
	ag := filepath.Join(home, ".ag")
	os.MkdirAll(ag, 0o700)
	spool, err := os.Create(filepath.Join(ag, "spool.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	history(spool, time.Now().Add(-2*time.Hour), panes, os.Getpid())
	spool.Close()
	env := append(os.Environ(), "HOME="+home, "AG_DIR="+ag, "CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"), "XDG_RUNTIME_DIR="+home, "TMUX="+sock+",1,0")
	tail := exec.Command(bin("ag-tail"), "--follow")
	fold := exec.Command(bin("ag-fold"), "--tmux", "-S", sock, "--check", "0")
	tail.Env, fold.Env = env, env
	tail.Stderr, fold.Stderr, fold.Stdout = os.Stderr, os.Stderr, io.Discard
	pr, pw, _ := os.Pipe()
	tail.Stdout, fold.Stdin = pw, pr
	for _, c := range []*exec.Cmd{fold, tail} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	pr.Close()
	pw.Close()
	defer func() { tail.Process.Signal(syscall.SIGTERM); tail.Wait(); fold.Wait() }()
	// Replayed: the last live session's pane shows working.
	deadline := time.Now().Add(time.Minute)
	for tm("show-options", "-pqv", "-t", panes[liveSessions-1], "@ag_status") != "working" {
		if time.Now().After(deadline) {
			t.Fatal("the history was not replayed into tmux in a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)

	const n = 40
	var lat []time.Duration
	for i := range n {
		s := waitingOnes + i%(liveSessions-waitingOnes)
		hook, want := `{"session_id":%q,"hook_event_name":"Stop","cwd":"/w"}`, "done"
		if i/(liveSessions-waitingOnes)%2 == 1 {
			hook, want = `{"session_id":%q,"hook_event_name":"UserPromptSubmit","prompt":"go on","cwd":"/w"}`, "working"
		}
		h := exec.Command(bin("ag-hook"), "claude")
		h.Env = append(env, "TMUX_PANE="+panes[s])
		h.Stdin = strings.NewReader(fmt.Sprintf(hook, liveID(s)))
		start := time.Now()
		if err := h.Run(); err != nil {
			t.Fatal(err)
		}
		for tm("show-options", "-pqv", "-t", panes[s], "@ag_status") != want {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("hook %d: %s never showed %s", i, panes[s], want)
			}
		}
		lat = append(lat, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	poll := measure(t, 2, 20, func() error { tm("show-options", "-pqv", "-t", panes[0], "@ag_status"); return nil })
	slices.Sort(lat)
	med := lat[n/2]
	t.Logf("ag-hook → @ag_status, %d live and %d finished sessions, %d panes: median %s, min %s, max %s (n=%d); one tmux poll %s",
		liveSessions, finishedCount, len(panes), round(med), round(lat[0]), round(lat[n-1]), n, poll)
	figure(fmt.Sprintf("ag-hook → spool → ag-tail → ag-fold --tmux → @ag_status, %d live / %d finished (median; max)", liveSessions, finishedCount),
		fmt.Sprintf("**%s**; %s (a tmux poll: %s)", round(med), round(lat[n-1]), round(poll.Median)), "< 20 ms median", med < hookToTmux)
	if med >= hookToTmux {
		t.Errorf("median %s, budget %s", med, hookToTmux)
	}
}

// TestHundredMemory: the login pipeline (ag-tail --follow | ag-fold --tmux
// | ag-notify | ag-keys) replays the ≥ 1 GB history and the hundred
// agents' spool, then follows the 100 live sessions writing their
// transcripts and hooks for AG_BENCH_FOLLOW_SECONDS (60); each stage's
// peak and current resident memory, from /proc.
func TestHundredMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	seconds := 60
	if s := os.Getenv("AG_BENCH_FOLLOW_SECONDS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			seconds = n
		}
	}
	corpus, size := scaleCorpus(t)
	sock, panes, tm := tmuxServer(t, liveSessions)
	home := t.TempDir()
	ag := filepath.Join(home, ".ag")
	os.MkdirAll(ag, 0o700)
	spoolPath := filepath.Join(ag, "spool.ndjson")
	spool, err := os.Create(spoolPath)
	if err != nil {
		t.Fatal(err)
	}
	at := history(spool, time.Now().Add(-2*time.Hour), panes, os.Getpid())
	spool.Close()
	liveDir := filepath.Join(home, "live", "projects", "-home-dev-live")
	os.MkdirAll(liveDir, 0o755)
	env := append(os.Environ(), "HOME="+home, "AG_DIR="+ag, "CLAUDE_CONFIG_DIR="+corpus+","+filepath.Join(home, "live"),
		"XDG_RUNTIME_DIR="+home, "TMUX="+sock+",1,0")
	procs := []*exec.Cmd{
		exec.Command(bin("ag-tail"), "--follow"),
		exec.Command(bin("ag-fold"), "--tmux", "-S", sock),
		exec.Command(bin("ag-notify"), "--backend", "exec", "--exec", "true", "-S", sock),
		exec.Command(bin("ag-keys"), "-S", sock),
	}
	for i, c := range procs {
		c.Env, c.Stderr = env, os.Stderr
		if i > 0 {
			pr, pw, _ := os.Pipe()
			procs[i-1].Stdout, c.Stdin = pw, pr
		}
	}
	procs[len(procs)-1].Stdout = io.Discard
	for _, c := range procs {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < len(procs); i++ {
		procs[i-1].Stdout.(*os.File).Close()
		procs[i].Stdin.(*os.File).Close()
	}
	defer func() {
		for _, c := range procs {
			c.Process.Kill()
			c.Wait()
		}
	}()
	deadline := time.Now().Add(3 * time.Minute)
	for tm("show-options", "-pqv", "-t", panes[liveSessions-1], "@ag_status") != "working" {
		if time.Now().After(deadline) {
			t.Fatal("not replayed in 3 minutes")
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The hundred agents at work: every 100 ms ten of them write a turn's
	// lines to their transcripts and their hooks to the spool.
	files := make([]*os.File, liveSessions)
	for i := range files {
		if files[i], err = os.Create(filepath.Join(liveDir, liveID(i)+".jsonl")); err != nil {
			t.Fatal(err)
		}
		defer files[i].Close()
	}
	sp, err := os.OpenFile(spoolPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	r := rand.New(rand.NewPCG(2, 2))
	msg, lines := 0, 0
	end := time.Now().Add(time.Duration(seconds) * time.Second)
	for time.Now().Before(end) {
		for range 10 {
			s := waitingOnes + r.IntN(liveSessions-waitingOnes)
			at = at.Add(time.Millisecond)
			msg++
			fmt.Fprintf(files[s], `{"isSidechain":false,"message":{"model":"claude-opus-4-6","id":"lmsg%d","role":"assistant","content":[{"type":"tool_use","id":"ltool%d","name":"Bash","input":{"command":"go test ./..."}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"cache_read_input_tokens":40000,"output_tokens":120}},"requestId":"lreq%d","type":"assistant","uuid":"lu%d","timestamp":%q}`+"\n",
				msg, msg, msg, msg, ts(at))
			fmt.Fprintf(sp, `{"v":1,"t":%q,"kind":"tool.start","agent":"claude","session":%q,"src":"hook","id":"lh%d","pane":%q,"tool":"Bash","tool_id":"ltool%d"}`+"\n", ts(at), liveID(s), msg, panes[s], msg)
			fmt.Fprintf(files[s], `{"isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"ltool%d","type":"tool_result","content":"ok"}]},"uuid":"lr%d","timestamp":%q}`+"\n", msg, msg, ts(at))
			lines += 3
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	names := []string{"ag-tail", "ag-fold", "ag-notify", "ag-keys"}
	var cells []string
	over := false
	for i, c := range procs {
		if c.ProcessState != nil {
			t.Fatalf("%s exited", names[i])
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		kb := func(key string) int64 {
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, key+":"); ok {
					n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
					return n << 10
				}
			}
			return 0
		}
		hwm, rss := kb("VmHWM"), kb("VmRSS")
		over = over || hwm >= peakBudget
		cells = append(cells, fmt.Sprintf("%s %s (now %s)", names[i], mib(hwm), mib(rss)))
		t.Logf("%s: peak %s, now %s", names[i], mib(hwm), mib(rss))
	}
	t.Logf("replayed %.2f GB and %d sessions' hooks, then followed %d sessions for %d s (%d lines, %d hooks)", float64(size)/1e9, finishedCount+liveSessions, liveSessions, seconds, lines, msg)
	figure(fmt.Sprintf("resident memory, peak (now), after replaying %.2f GB and following %d sessions for %d s", float64(size)/1e9, liveSessions, seconds),
		strings.Join(cells, "; "), "< 64 MiB each", !over)
	if over {
		t.Error("a stage's peak resident memory is over 64 MiB")
	}
}
