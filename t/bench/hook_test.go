//go:build bench

package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agwatch/ag/filters/event"
)

// hookBudget is the most the median `ag-hook claude` may take, whole
// process, on the 2-core machine the figures come from.
const hookBudget = 3 * time.Millisecond

// hookPayload is a typical PreToolUse payload (Claude Code 2.1.x shape).
const hookPayload = `{"session_id":"5f24c1d2-8a1b-4c3e-9f00-1a2b3c4d5e6f","transcript_path":"/home/u/.claude/projects/-home-u-src-app/5f24c1d2-8a1b-4c3e-9f00-1a2b3c4d5e6f.jsonl","cwd":"/home/u/src/app","prompt_id":"3630a1b2-0c4d-4e5f-8a9b-0c1d2e3f4a5b","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./... 2>&1 | tail -20","description":"Run the tests"},"tool_use_id":"toolu_01ExTXf2amwZovJCecSWQFhy"}`

// TestHookSpeed times `ag-hook claude` the way Claude runs it: a new
// process with the payload on stdin, appending to a real spool, started by
// a process with no terminal whose parent is named claude (on Linux Claude
// runs hooks through `sh -c`, so ag-hook's walk up to the agent reads two
// processes; the shell's own start is not counted). Runs are interleaved
// with two floors, a Go program that reads stdin and appends a line and
// /bin/true, so no program follows itself with its pages still in the CPU
// caches and a busy machine shows as a busy machine rather than as ag-hook.
//
// Both page-cache states a binary is found in are timed, each on a copy
// the test makes so neither depends on what happened to bin/ before: as
// make installs it (written with write(2), so the page cache holds it in
// large folios), and the same bytes after the page cache dropped them,
// which come back through the process's own page faults in 4 KB pages —
// the state the linker's output (go install) starts in, and the one a
// binary idle for a minute is in on a machine that reclaims idle page
// cache (this VM's DAMON does). The budget is for the first; the second
// is logged beside it.
func TestHookSpeed(t *testing.T) {
	dir := t.TempDir()
	goFloor := buildGoFloor(t, dir)
	agent, runner := buildHookRunner(t, dir)
	installed := writtenCopy(t, bin("ag-hook"), filepath.Join(dir, "installed", "ag-hook"), false)
	evicted := writtenCopy(t, bin("ag-hook"), filepath.Join(dir, "evicted", "ag-hook"), true)
	const warm, n = 20, 300
	spec := hookRunSpec{
		N: warm + n, Payload: hookPayload,
		Env: []string{"AG_DIR=" + filepath.Join(dir, "ag"), "TMUX_PANE=%1", "HOME=" + dir, "PATH=" + os.Getenv("PATH")},
		Runs: [][]string{
			{installed, "claude"}, {goFloor, filepath.Join(dir, "floor.ndjson")}, {"/bin/true"},
			{evicted, "claude"},
		},
	}
	res, stats := runHooks(t, agent, runner, spec, warm)
	if res.Stdout != "" {
		t.Fatalf("ag-hook wrote %q to stdout", res.Stdout)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ag", "spool.ndjson"))
	if err != nil || bytes.Count(b, []byte("\n")) != 2*(warm+n) {
		t.Fatalf("spool has %d lines after %d runs (%v)", bytes.Count(b, []byte("\n")), 2*(warm+n), err)
	}
	var e event.Event
	if event.Decode(b[:bytes.IndexByte(b, '\n')], &e) != nil || e.PID != res.Agent {
		t.Fatalf("the hook found pid %d, the agent is %d: %s", e.PID, res.Agent, b[:bytes.IndexByte(b, '\n')])
	}
	t.Logf("ag-hook claude, PreToolUse payload (%d bytes) to the spool, as make installs it: %s", len(hookPayload), stats[0])
	t.Logf("floor, Go program reading stdin and appending a line: %s", stats[1])
	t.Logf("floor, /bin/true: %s (load average %s)", stats[2], loadavg())
	t.Logf("ag-hook claude, the same file after the page cache dropped it: %s", stats[3])
	if stats[0].Median > hookBudget {
		t.Errorf("ag-hook claude median %s, budget %s", round(stats[0].Median), hookBudget)
	}
}

// runHooks has the agent stand-in start the runner with spec, and returns
// its result and each run's figures past the first warm.
func runHooks(t *testing.T, agent, runner string, spec hookRunSpec, warm int) (hookRunResult, []Stats) {
	t.Helper()
	js, _ := json.Marshal(spec)
	c := exec.Command(agent, runner)
	c.Stdin = bytes.NewReader(js)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var res hookRunResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("runner: %v: %q", err, out.String())
	}
	stats := make([]Stats, len(spec.Runs))
	for j, ds := range res.Times {
		ds = ds[warm:]
		n := len(ds)
		slices.Sort(ds)
		stats[j] = Stats{N: n, Median: ds[n/2], Min: ds[0], Max: ds[n-1]}
	}
	return res, stats
}

// hookRunSpec is what the runner runs: each of Runs N times in turn, the
// payload on stdin, with Env.
type hookRunSpec struct {
	N       int
	Payload string
	Env     []string
	Runs    [][]string
}

// hookRunResult is the runner's answer: each run's wall times, what the
// first program printed, and the agent's pid (which the hook must find).
type hookRunResult struct {
	Times  [][]time.Duration
	Stdout string
	Agent  int
}

// buildHookRunner builds the program that stands in for Claude and its
// shell: run as "claude" it starts its argument and waits; run as
// "hookrun" (no terminal, like Claude's `sh -c`) it reads a hookRunSpec on
// stdin, times the runs and prints a hookRunResult.
func buildHookRunner(t *testing.T, dir string) (agent, runner string) {
	src := filepath.Join(dir, "hookrun.go")
	os.WriteFile(src, []byte(`package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	if filepath.Base(os.Args[0]) != "hookrun" { // the agent: claude, gemini, …
		c := exec.Command(os.Args[1])
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal below
		if err := c.Run(); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		return
	}
	var spec struct {
		N       int
		Payload string
		Env     []string
		Runs    [][]string
	}
	in, _ := io.ReadAll(os.Stdin)
	if err := json.Unmarshal(in, &spec); err != nil {
		panic(err)
	}
	res := struct {
		Times  [][]time.Duration
		Stdout string
		Agent  int
	}{Times: make([][]time.Duration, len(spec.Runs)), Agent: os.Getppid()}
	// Files for stdin and stdout, not a reader and a buffer: os/exec would
	// copy those through pipes with goroutines of this process, whose
	// wake-ups would be timed as the program's.
	dir, _ := os.MkdirTemp("", "hookrun-")
	defer os.RemoveAll(dir)
	payload := filepath.Join(dir, "payload.json")
	os.WriteFile(payload, []byte(spec.Payload), 0o600)
	out, _ := os.Create(filepath.Join(dir, "stdout"))
	null, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	for i := 0; i < spec.N; i++ {
		for j, r := range spec.Runs {
			c := exec.Command(r[0], r[1:]...)
			c.Env = spec.Env
			in, err := os.Open(payload)
			if err != nil {
				panic(err)
			}
			c.Stdin, c.Stdout = in, null
			if j == 0 {
				c.Stdout = out
			}
			start := time.Now()
			err = c.Run()
			res.Times[j] = append(res.Times[j], time.Since(start))
			in.Close()
			if err != nil {
				os.Stderr.WriteString(r[0] + ": " + err.Error() + "\n")
				os.Exit(1)
			}
		}
	}
	b, _ := os.ReadFile(out.Name())
	res.Stdout = string(b)
	json.NewEncoder(os.Stdout).Encode(res)
}
`), 0o644)
	agent, runner = filepath.Join(dir, "claude"), filepath.Join(dir, "hookrun")
	c := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", runner, src)
	c.Dir = dir
	if msg, err := c.CombinedOutput(); err != nil {
		t.Fatalf("building the hook runner: %v\n%s", err, msg)
	}
	b, _ := os.ReadFile(runner)
	if err := os.WriteFile(agent, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return agent, runner
}

// writtenCopy writes src's bytes to dst with one write, as make's cp does,
// and with evict has the kernel drop them from the page cache afterwards,
// so the first run reads them back from disk through its page faults.
func writtenCopy(t *testing.T, src, dst string, evict bool) string {
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	if !evict {
		return dst
	}
	// Dirty pages cannot be dropped: write them out first.
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatalf("dropping %s from the page cache: %v", dst, err)
	}
	return dst
}

// buildGoFloor builds the smallest Go program that does a hook's I/O.
func buildGoFloor(t *testing.T, dir string) string {
	src := filepath.Join(dir, "floor.go")
	os.WriteFile(src, []byte(`package main

import (
	"io"
	"os"
)

func main() {
	b, _ := io.ReadAll(os.Stdin)
	f, _ := os.OpenFile(os.Args[1], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	f.Write(append(b[:32:32], '\n'))
	f.Close()
}
`), 0o644)
	out := filepath.Join(dir, "floor")
	c := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, src)
	c.Dir = dir
	if msg, err := c.CombinedOutput(); err != nil {
		t.Fatalf("building the Go floor: %v\n%s", err, msg)
	}
	return out
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
