//go:build bench

package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/state"
)

// idleBudget is the share of one core the running login pipeline may use
// while nothing happens: 0.1 %.
const idleBudget = 0.1

// TestPipelineIdleCPU runs the login pipeline — ag-tail --follow |
// ag-detect --watch --all --panes | ag-fold --tmux | ag-notify — over 20
// Claude sessions (their transcripts and a spool of their hooks, each
// session's process a pane of a private tmux server, which ag-detect
// follows), lets it settle, then reads the processes' CPU time from /proc
// (ag-detect's control client with them) over AG_BENCH_IDLE_SECONDS (60)
// idle seconds. "history": the
// spool's three waits are older than ag-notify's --max-age, so nothing is
// shown; "shown": they are fresh, so three notifications stay up (nobody
// looks at the panes) while the pipeline idles.
func TestPipelineIdleCPU(t *testing.T) {
	t.Run("history", func(t *testing.T) { idle(t, false) })
	t.Run("shown", func(t *testing.T) { idle(t, true) })
}

func idle(t *testing.T, live bool) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	seconds := 60
	if s := os.Getenv("AG_BENCH_IDLE_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("AG_BENCH_IDLE_SECONDS=%q", s)
		}
		seconds = n
	}
	const sessions = 20
	corpus, _ := claudeCorpus(t)
	home := t.TempDir()
	claudeDir := filepath.Join(home, ".claude")
	ids := linkSessions(t, corpus, claudeDir, sessions)

	// The sessions' processes: one pane each, running sleep.
	sockDir, err := os.MkdirTemp("", "agi")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(sockDir, "s")
	tm := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tm("-f", "/dev/null", "new-session", "-d", "-s", "idle", "sleep 3600")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run(); os.RemoveAll(sockDir) })
	for i := 1; i < sessions; i++ {
		tm("new-window", "-d", "-t", "idle:", "sleep 3600")
	}
	panes := strings.Split(tm("list-panes", "-s", "-t", "idle", "-F", "#{pane_id} #{pane_pid} #{pane_tty}"), "\n")

	// The spool: each session started in its pane (after its process did:
	// ag-fold takes a process that started after the session named it for
	// a reused pid) and finished a turn; three wait for permission.
	agDir := filepath.Join(home, ".ag")
	if err := os.MkdirAll(agDir, 0o700); err != nil {
		t.Fatal(err)
	}
	var spool bytes.Buffer
	at := time.Now().UTC()
	if !live {
		// Older than --max-age (10 s) when ag-notify reads them, and no
		// more than 2 s before the panes' processes started.
		at = at.Add(-time.Second)
		time.Sleep(13 * time.Second)
	}
	for i, id := range ids {
		f := strings.Fields(panes[i])
		ts := func(s int) string { return at.Add(time.Duration(s) * time.Second).Format("2006-01-02T15:04:05.000Z") }
		common := fmt.Sprintf(`"agent":"claude","session":%q,"src":"hook","pane":%q,"pid":%s,"tty":%q,"cwd":"/home/dev/src/p%d"`, id, f[0], f[1], f[2], i)
		fmt.Fprintf(&spool, `{"v":1,"t":%q,"kind":"session.start",%s,"id":"s%d"}`+"\n", ts(0), common, i)
		fmt.Fprintf(&spool, `{"v":1,"t":%q,"kind":"turn.start",%s,"id":"t%d","text":"do the thing"}`+"\n", ts(1), common, i)
		if i%7 == 0 {
			fmt.Fprintf(&spool, `{"v":1,"t":%q,"kind":"wait",%s,"id":"w%d","attention":"permission","tool":"Bash","text":"make"}`+"\n", ts(2), common, i)
		} else {
			fmt.Fprintf(&spool, `{"v":1,"t":%q,"kind":"turn.end",%s,"id":"e%d"}`+"\n", ts(3), common, i)
		}
	}
	if err := os.WriteFile(filepath.Join(agDir, "spool.ndjson"), spool.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	env := append(os.Environ(), "HOME="+home, "AG_DIR="+agDir, "CLAUDE_CONFIG_DIR="+claudeDir,
		"TMUX="+sock+",1,0", "XDG_RUNTIME_DIR="+home)
	tail := exec.Command(bin("ag-tail"), "--follow")
	detect := exec.Command(bin("ag-detect"), "--watch", "--all", "--panes", "-S", sock)
	fold := exec.Command(bin("ag-fold"), "--tmux", "-S", sock)
	notify := exec.Command(bin("ag-notify"), "--backend", "exec", "--exec", "true", "-S", sock)
	procs := []*exec.Cmd{tail, detect, fold, notify}
	var errs [4]bytes.Buffer
	for i, c := range procs {
		c.Env, c.Stderr = env, &errs[i]
	}
	var pipes []*os.File
	for i := 0; i+1 < len(procs); i++ {
		r, w, _ := os.Pipe()
		procs[i].Stdout, procs[i+1].Stdin = w, r
		pipes = append(pipes, r, w)
	}
	notify.Stdout = io.Discard
	for _, c := range procs {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range pipes {
		f.Close()
	}
	t.Cleanup(func() {
		for _, c := range procs {
			c.Process.Kill()
			c.Wait()
		}
	})

	// Settled: the state file has every session, tmux shows the waits, and
	// a whole second passes with no CPU used by any of the three.
	start := time.Now()
	for {
		states, err := state.Read(filepath.Join(agDir, "state.json"))
		if time.Since(start) > time.Minute {
			t.Fatalf("the pipeline did not settle: %d states (%v), @ag_waiting=%q; stderr: %s | %s | %s | %s", len(states), err,
				tm("show-options", "-gqv", "@ag_waiting"), &errs[0], &errs[1], &errs[2], &errs[3])
		}
		if err == nil && len(states) >= sessions && tm("show-options", "-gqv", "@ag_waiting") == "3" {
			a := cpu(t, procs)
			time.Sleep(time.Second)
			b := cpu(t, procs)
			if b.sched-a.sched < 2*time.Millisecond || time.Since(start) > time.Minute {
				break
			}
			t.Logf("settling: %v %v %v %v on CPU in 1 s", b.each[0].sched-a.each[0].sched, b.each[1].sched-a.each[1].sched,
				b.each[2].sched-a.each[2].sched, b.each[3].sched-a.each[3].sched)
			continue
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("settled after %s (replaying %d sessions' transcripts and the spool)", time.Since(start).Round(time.Millisecond), sessions)

	// ag-detect's control client (one per session) counts as ag-detect.
	clients := children(detect.Process.Pid)
	before, c0, t0 := cpu(t, procs), onCPU(clients...), time.Now()
	time.Sleep(time.Duration(seconds) * time.Second)
	after, c1, wall := cpu(t, procs), onCPU(clients...), time.Since(t0)
	after.sched += c1 - c0
	after.each[1].sched += c1 - c0
	for i, c := range procs {
		if c.ProcessState != nil {
			t.Fatalf("%s exited: %s", c.Path, &errs[i])
		}
	}
	ticks := after.ticks - before.ticks
	sched := after.sched - before.sched
	pctTicks := 100 * float64(ticks) / float64(wall)
	pctSched := 100 * float64(sched) / float64(wall)
	for i, c := range procs {
		t.Logf("%-9s utime+stime %v, on-CPU (schedstat) %v", filepath.Base(c.Path), after.each[i].ticks-before.each[i].ticks, after.each[i].sched-before.each[i].sched)
	}
	t.Logf("idle pipeline (%s), %d sessions, %s: utime+stime %v = %.4f %% of one core (schedstat %v = %.4f %%); budget %.1f %%",
		t.Name(), sessions, wall.Round(time.Millisecond), ticks, pctTicks, sched, pctSched, idleBudget)
	// The budget is held to schedstat, the scheduler's own count of time on
	// a CPU: utime+stime is sampled at each 10 ms tick, so tens of
	// milliseconds of short wake-ups can be charged as anything from 0 to
	// twice what they took.
	pct, how := pctSched, "schedstat"
	if sched == 0 {
		pct, how = pctTicks, "utime+stime" // no schedstat in this kernel
	}
	if pct > idleBudget {
		t.Errorf("idle CPU %.4f %% of one core (%s) is over the %.1f %% budget", pct, how, idleBudget)
	}
}

// children are a process's children.
func children(pid int) []int {
	var pids []int
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// linkSessions hard-links (copies when it cannot) n main sessions of the
// corpus, with their sub-agent files, into dir/projects.
func linkSessions(t *testing.T, corpus, dir string, n int) []string {
	t.Helper()
	mains, err := filepath.Glob(filepath.Join(corpus, "projects", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mains) < n {
		t.Fatalf("corpus %s has %d sessions, need %d (AG_BENCH_CORPUS_MB larger)", corpus, len(mains), n)
	}
	var ids []string
	for _, m := range mains[:n] {
		id := strings.TrimSuffix(filepath.Base(m), ".jsonl")
		ids = append(ids, id)
		err := filepath.Walk(filepath.Dir(m), func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.Dir(m), p)
			if !(rel == id+".jsonl" || rel == id || strings.HasPrefix(rel, id+string(filepath.Separator))) {
				if fi.IsDir() && rel != "." {
					return filepath.SkipDir
				}
				return nil
			}
			dst := filepath.Join(dir, "projects", filepath.Base(filepath.Dir(m)), rel)
			if fi.IsDir() {
				return os.MkdirAll(dst, 0o755)
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if os.Link(p, dst) == nil {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// cpuTime is CPU used so far: utime+stime from /proc/PID/stat (clock
// ticks, 10 ms) and on-CPU time from /proc/PID/schedstat (ns), summed over
// the processes (each thread is counted by the kernel in the process).
type cpuTime struct {
	ticks, sched time.Duration
	each         []cpuTime
}

func cpu(t *testing.T, procs []*exec.Cmd) cpuTime {
	t.Helper()
	var sum cpuTime
	for _, c := range procs {
		pid := c.Process.Pid
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// Fields after the command (which may hold spaces) in parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		one := cpuTime{ticks: time.Duration(ut+st) * 10 * time.Millisecond}
		if s, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid)); err == nil {
			// schedstat is per thread for a task; the process total is the
			// sum over /proc/PID/task/*/schedstat.
			one.sched = taskSched(pid, s)
		}
		sum.ticks += one.ticks
		sum.sched += one.sched
		sum.each = append(sum.each, one)
	}
	return sum
}

func taskSched(pid int, fallback []byte) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total int64
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total += n
		}
	}
	if total == 0 {
		if f := strings.Fields(string(fallback)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			total = n
		}
	}
	return time.Duration(total)
}
