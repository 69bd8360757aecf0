//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startSleepers starts n sleep processes (the "few hundred processes" a
// desktop has) and stops them when the test ends.
func startSleepers(t *testing.T, n int) {
	t.Helper()
	var cmds []*exec.Cmd
	t.Cleanup(func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	})
	for i := 0; i < n; i++ {
		c := exec.Command("sleep", "600")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
}

// ag-detect --pane is a prompt segment: it runs on every prompt and every
// status-line refresh. Budget: median under 5 ms with a few hundred
// processes running.
func TestDetectPaneSegment(t *testing.T) {
	startSleepers(t, 300)
	dir := t.TempDir()
	// As a running pipeline leaves it: kept by a live ag-fold (this test
	// process stands in), each session's process alive (this one too), so
	// the segment checks the writer and the session as it does on every
	// prompt.
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	var sessions string
	for i := 0; i < 20; i++ {
		if i > 0 {
			sessions += ",\n"
		}
		sessions += fmt.Sprintf(`{"v":1,"t":"%s","kind":"state","agent":"claude","session":"s%d","src":"fold","pid":%d,"pane":"%%%d","cwd":"/src/p%d","status":"waiting","attention":"permission","tool":"Bash","text":"go test ./...","model":"claude-opus-4-8","tokens":{"in":1,"out":2,"cache_read":3,"cache_write":4}}`, now, i, os.Getpid(), i, i)
	}
	host, _ := os.Hostname()
	if h := os.Getenv("AG_HOST"); h != "" {
		host = h
	}
	head := fmt.Sprintf(`{"v":1,"t":"%s","writer":{"pid":%d,"host":%q,"start":"%s","check":"2s"},"sessions":[`, now, os.Getpid(), strings.SplitN(host, ".", 2)[0], now)
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(head+"\n"+sessions+"\n]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "AG_DIR="+dir, "TMUX_PANE=%7")
	run := func(name string, args ...string) func() error {
		return func() error {
			c := exec.Command(name, args...)
			c.Env = env
			out, err := c.Output()
			if err != nil {
				return err
			}
			if name == bin("ag-detect") && string(out) != "claude ⏳ Bash\n" {
				return fmt.Errorf("ag-detect --pane printed %q", out)
			}
			return nil
		}
	}
	goFloor := goFloorBinary(t)
	floor := measure(t, 20, 300, run("/bin/true"))
	gf := measure(t, 20, 300, run(goFloor))
	s := measure(t, 20, 300, run(bin("ag-detect"), "--pane"))
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("load average: %s", strings.TrimSpace(string(load)))
	t.Logf("/bin/true (process spawn floor): %s", floor)
	t.Logf("empty static Go program (Go floor): %s", gf)
	t.Logf("ag-detect --pane, 300 extra processes, 20 sessions in the state file: %s", s)
	if s.Median > 5e6 {
		// A 2-core machine running other builds measures the neighbours;
		// the budget is judged on a quiet one.
		if busy(load) {
			t.Logf("over the 5ms budget, but the machine is busy: not judged")
			return
		}
		t.Errorf("ag-detect --pane median %s, budget 5ms", round(s.Median))
	}
}

// goFloorBinary builds the smallest Go program: what any Go segment pays.
func goFloorBinary(t *testing.T) string {
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "gofloor")
	b := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, src)
	b.Dir = dir
	b.Env = append(os.Environ(), "GO111MODULE=off")
	if msg, err := b.CombinedOutput(); err != nil {
		t.Fatalf("building the Go floor: %v %s", err, msg)
	}
	return out
}

// busy reports a load average above the number of CPUs.
func busy(loadavg []byte) bool {
	f := strings.Fields(string(loadavg))
	if len(f) == 0 {
		return false
	}
	l, err := strconv.ParseFloat(f[0], 64)
	return err == nil && l > float64(runtime.NumCPU())
}

// ag-detect --all against a real tmux server: 8 panes, 4 of them agents,
// with 300 other processes: what one --watch tick costs.
func TestDetectAll(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	startSleepers(t, 300)
	dir := t.TempDir()
	fake := filepath.Join(dir, "claude")
	if b, err := os.ReadFile("/bin/sleep"); err != nil || os.WriteFile(fake, b, 0o755) != nil {
		t.Fatal("cannot make a fake claude")
	}
	sock := filepath.Join(dir, "tmux.sock")
	tm := func(args ...string) {
		if out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
	}
	tm("new-session", "-d", "-s", "b", "sleep 600")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	for i := 0; i < 7; i++ {
		if i%2 == 0 {
			tm("new-window", "-d", "-t", "b:", fake+" 600")
		} else {
			tm("new-window", "-d", "-t", "b:", "sleep 600")
		}
	}
	s := measure(t, 5, 100, func() error {
		out, err := exec.Command(bin("ag-detect"), "-S", sock, "--all").Output()
		if err == nil && len(out) == 0 {
			return fmt.Errorf("no agents found")
		}
		return err
	})
	t.Logf("ag-detect --all, 8 panes (4 agents), 300 extra processes: %s", s)
}
