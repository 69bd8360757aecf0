//go:build linux

package proc

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Proc
		err  bool
	}{
		{"17977 (claude) S 17976 17977 17977 34837 17977 4194304 324 0 0 0 0 0 0 0 20 0 1 0 172970 2560000 304 18446744073709551615",
			Proc{PID: 17977, PPID: 17976, PGID: 17977, TTY: 34837, TPGID: 17977, Start: 172970}, false},
		{"5 (a b) c)) Z 1 5 5 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0 0",
			Proc{PID: 5, PPID: 1, PGID: 5, TTY: 0, TPGID: -1, Start: 99, Zombie: true}, false},
		{"12 (x) S 1 2 3", Proc{}, true},
		{"(x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", Proc{}, true},
		{"garbage", Proc{}, true},
	} {
		got, err := ParseStat([]byte(tc.line))
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseStat(%q) = %+v, %v; want %+v (error %v)", tc.line, got, err, tc.want, tc.err)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("1 (init) S 0 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0"))
	f.Add([]byte("2 ()) R 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Any bytes: an error or a process, never a panic; a parsed line
		// parses the same again.
		p, err := ParseStat(b)
		if err == nil {
			if q, err2 := ParseStat(b); err2 != nil || q != p {
				t.Fatalf("unstable: %+v vs %+v, %v", p, q, err2)
			}
		}
	})
}

// The real table holds this process with its real parent, and a child
// started on no terminal shows up with its exe, argv and environment.
func TestSnapshotReal(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), "AG_AGENT=claude")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	tab, err := Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() < 3 {
		t.Fatalf("only %d processes", tab.Len())
	}
	me, ok := tab.Get(os.Getpid())
	if !ok || me.PPID != os.Getppid() {
		t.Fatalf("self: %+v %v, want ppid %d", me, ok, os.Getppid())
	}
	found := false
	for _, k := range tab.Children(os.Getpid()) {
		if k == cmd.Process.Pid {
			found = true
		}
	}
	if !found {
		t.Fatalf("child %d not among %v", cmd.Process.Pid, tab.Children(os.Getpid()))
	}
	var s System
	pid := cmd.Process.Pid
	if exe := s.Exe(pid); !strings.HasSuffix(exe, "/sleep") {
		t.Errorf("exe %q", exe)
	}
	if argv := s.Argv(pid); len(argv) != 2 || argv[0] != "sleep" || argv[1] != "30" {
		t.Errorf("argv %q", argv)
	}
	if v, ok := Getenv(s.Env(pid), "AG_AGENT"); !ok || v != "claude" {
		t.Errorf("AG_AGENT %q %v", v, ok)
	}
	if wd, _ := os.Getwd(); s.Cwd(pid) != wd {
		t.Errorf("cwd %q, want %q", s.Cwd(pid), wd)
	}
	if st := s.Started(pid); time.Since(st) > time.Minute || time.Since(st) < -time.Second {
		t.Errorf("started %v", st)
	}
}

func BenchmarkSnapshot(b *testing.B) {
	for b.Loop() {
		if _, err := Snapshot(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestChildren(t *testing.T) {
	c := exec.Command("sleep", "5")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	kids, ok := Children(os.Getpid())
	if !ok {
		t.Skip("this kernel keeps no /proc/PID/task/*/children")
	}
	if !slices.Contains(kids, c.Process.Pid) {
		t.Errorf("Children(%d) = %v, want it to hold %d", os.Getpid(), kids, c.Process.Pid)
	}
	if _, ok := Children(1 << 30); ok {
		t.Error("Children of no process: ok")
	}
}
