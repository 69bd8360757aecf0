package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		in   string
		want proc
		ok   bool
	}{
		{"12494 (claude) S 12493 12494 12494 34816 12494 4194560 …", proc{ppid: 12493, comm: "claude", tty: "/dev/pts/0"}, true},
		{"7 (tmux: server) S 1 7 7 0 -1 4194368", proc{ppid: 1, comm: "tmux: server"}, true},
		{"9 (a) b (c)) R 8 9 9 34817 9", proc{ppid: 8, comm: "a) b (c)", tty: "/dev/pts/1"}, true},
		{"9 (sh) S 8 9 9 1025 9", proc{ppid: 8, comm: "sh", tty: "/dev/tty1"}, true},
		{"9 (x) S", proc{}, false},
		{"garbage", proc{}, false},
		{"9 (x) S y 9 9 0", proc{}, false},
	}
	for _, tc := range tests {
		got, ok := parseStat([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseStat(%q) = %+v %v, want %+v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestReadProcLongLine: statBuf holds only the head of a stat line, enough
// for the longest one the walk reads: a 7-digit pid, a 64-byte comm full of
// parentheses and spaces, the largest ppid, session and tty_nr, and the
// rest of the fields a real line carries.
func TestReadProcLongLine(t *testing.T) {
	root := t.TempDir()
	comm := strings.Repeat("a) (b ", 10) + "c)()"
	if len(comm) != 64 {
		t.Fatalf("comm is %d bytes", len(comm))
	}
	rest := strings.Repeat(" 18446744073709551615", 40) // fields after tty_nr
	line := "4194304 (" + comm + ") S 4194303 4194304 4194304 34816 4194304" + rest + "\n"
	if len(line) <= len(statBuf{}) {
		t.Fatalf("line of %d bytes fits the buffer: the test proves nothing", len(line))
	}
	dir := filepath.Join(root, "4194304")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf statBuf
	got, ok := readProc(root, 4194304, &buf)
	if want := (proc{ppid: 4194303, comm: comm, tty: "/dev/pts/0"}); !ok || got != want {
		t.Errorf("readProc = %+v %v, want %+v", got, ok, want)
	}
}

func TestTTYName(t *testing.T) {
	dev := func(major, minor uint64) uint64 { return (minor & 0xff) | major<<8 | (minor&^0xff)<<12 }
	for nr, want := range map[uint64]string{
		0:             "",
		dev(136, 0):   "/dev/pts/0",
		dev(136, 255): "/dev/pts/255",
		dev(136, 300): "/dev/pts/300",
		dev(137, 5):   "/dev/pts/261",
		dev(4, 2):     "/dev/tty2",
		dev(4, 65):    "/dev/ttyS1",
	} {
		if got := ttyName(nr); got != want {
			t.Errorf("ttyName(%d) = %q, want %q", nr, got, want)
		}
	}
}

// spoolPID reads the pid and tty of the one event in dir's spool.
func spoolPID(t *testing.T, dir string) (int, string, string) {
	t.Helper()
	evs := spoolLines(t, dir)
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	return evs[0].PID, evs[0].TTY, evs[0].Pane
}

// TestWalkFindsClaude: a real process named claude, which runs the hook
// through `sh -c` the way Claude Code does on Linux, is the one recorded.
func TestWalkFindsClaude(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	tmp := t.TempDir()
	claude := filepath.Join(tmp, "claude")
	if err := os.Symlink(sh, claude); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tmp, "payload"), []byte(payload), 0o600)
	dir := filepath.Join(tmp, "ag")
	// "; true" keeps each shell from exec'ing its last command away.
	script := fmt.Sprintf(`sh -c '%s claude < %s/payload; true'; true`, os.Args[0], tmp)
	c := exec.Command(claude, "-c", script)
	c.Env = append(os.Environ(), "AG_HOOK_TEST_MAIN=1", "AG_DIR="+dir)
	if out, err := c.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("%v %q", err, out)
	}
	if pid, _, _ := spoolPID(t, dir); pid != c.Process.Pid {
		t.Errorf("recorded pid %d, want the claude process %d", pid, c.Process.Pid)
	}
}

// TestWalkFindsTTY: in a tmux pane, with the hook run from a shell that
// has left the terminal (setsid), the recorded process is the pane's
// shell and the tty is the pane's.
func TestWalkFindsTTY(t *testing.T) {
	for _, p := range []string{"tmux", "setsid"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip("needs", p)
		}
	}
	tmp := t.TempDir()
	sock := filepath.Join(tmp, "sock")
	os.WriteFile(filepath.Join(tmp, "payload"), []byte(payload), 0o600)
	dir := filepath.Join(tmp, "ag")
	cmd := fmt.Sprintf(`AG_HOOK_TEST_MAIN=1 AG_DIR=%s setsid sh -c '%s claude < %s/payload; true'; touch %s/done; sleep 30`, dir, os.Args[0], tmp, tmp)
	out, err := exec.Command("tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-P", "-F", "#{pane_pid} #{pane_tty} #{pane_id}", cmd).Output()
	if err != nil {
		t.Fatalf("tmux: %v", err)
	}
	defer exec.Command("tmux", "-S", sock, "kill-server").Run()
	f := strings.Fields(string(out))
	panePID, _ := strconv.Atoi(f[0])
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(filepath.Join(tmp, "done")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	pid, tty, pane := spoolPID(t, dir)
	if pid != panePID || tty != f[1] || pane != f[2] {
		t.Errorf("recorded pid %d tty %q pane %q, want the pane's %d %q %q", pid, tty, pane, panePID, f[1], f[2])
	}
}

func BenchmarkAgentProcess(b *testing.B) {
	for b.Loop() {
		agentProcess(os.Getppid(), []string{"claude"})
	}
}
