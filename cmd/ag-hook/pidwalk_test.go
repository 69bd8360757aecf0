package main

import "testing"

// TestWalk: the three arms of the walk, on made-up process tables.
func TestWalk(t *testing.T) {
	// 100 ag-hook's parent … up to 1.
	tables := map[string]map[int]proc{
		// Linux: claude → sh -c (no tty) → ag-hook
		"claude above a tty-less shell": {
			100: {ppid: 90, comm: "sh"},
			90:  {ppid: 80, comm: "claude", tty: "/dev/pts/4"},
			80:  {ppid: 1, comm: "zsh", tty: "/dev/pts/4"},
		},
		// macOS: claude runs the hook directly
		"claude is the parent": {
			100: {ppid: 80, comm: "claude", tty: "/dev/ttys003"},
			80:  {ppid: 1, comm: "login", tty: "/dev/ttys003"},
		},
		// an agent under another name (node, MainThread): first tty wins
		"no claude, first tty": {
			100: {ppid: 95, comm: "sh"},
			95:  {ppid: 90, comm: "bash"},
			90:  {ppid: 80, comm: "node", tty: "/dev/pts/9"},
			80:  {ppid: 1, comm: "tmux: server", tty: "/dev/pts/1"},
		},
		// claude wins even above a tty-bearing wrapper
		"claude above a tty wrapper": {
			100: {ppid: 90, comm: "sh", tty: "/dev/pts/2"},
			90:  {ppid: 1, comm: "claude", tty: "/dev/pts/2"},
		},
		// nothing useful: the parent, so a stale pid cleans itself up
		"nothing": {
			100: {ppid: 90, comm: "sh"},
			90:  {ppid: 1, comm: "systemd"},
		},
		"unreadable parent": {},
	}
	want := map[string]struct {
		pid int
		tty string
	}{
		"claude above a tty-less shell": {90, "/dev/pts/4"},
		"claude is the parent":          {100, "/dev/ttys003"},
		"no claude, first tty":          {90, "/dev/pts/9"},
		"claude above a tty wrapper":    {90, "/dev/pts/2"},
		"nothing":                       {100, ""},
		"unreadable parent":             {100, ""},
	}
	for name, table := range tables {
		pid, tty := walk(100, []string{"claude"}, func(pid int) (proc, bool) { p, ok := table[pid]; return p, ok })
		if w := want[name]; pid != w.pid || tty != w.tty {
			t.Errorf("%s: walk = %d %q, want %d %q", name, pid, tty, w.pid, w.tty)
		}
	}
	// A cycle (a pid reused mid-walk) ends.
	cyc := map[int]proc{100: {ppid: 90, comm: "a"}, 90: {ppid: 100, comm: "b"}}
	if pid, _ := walk(100, []string{"claude"}, func(pid int) (proc, bool) { p, ok := cyc[pid]; return p, ok }); pid != 100 {
		t.Errorf("cycle: %d", pid)
	}
}
