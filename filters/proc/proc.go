// Package proc is the process table as agent detection needs it: who is
// whose child, each process's group and terminal, and which process group is
// in the foreground of a terminal — the one thing gopsutil cannot give
// cheaply, so it is read from /proc/PID/stat on linux and from the kernel's
// kinfo_proc on darwin. Paths, argv, cwd, environment and start times are
// read lazily, for the few processes detection looks at: through gopsutil
// on darwin (libproc and sysctl without cgo), straight from /proc on linux.
//
// Why not gopsutil on linux too: its process package imports net, which
// with cgo enabled makes every binary that links it dynamically linked, and
// the dynamic loader alone costs a prompt segment (ag-detect --pane) about
// a millisecond on every render. Reading four /proc files needs no library.
package proc

import (
	"context"
	"slices"
	"time"
)

// Proc is one process's place in the table.
type Proc struct {
	PID, PPID int
	PGID      int    // process group
	TPGID     int    // foreground process group of its controlling terminal; <= 0 if none
	TTY       uint64 // controlling terminal's device number; 0 if none
	Start     uint64 // start time in the OS's own units: with PID, a process's identity
	Zombie    bool
}

// Table is a snapshot of the process table.
type Table struct {
	procs map[int]*Proc
	kids  map[int][]int
}

// NewTable builds a table from ps (tests build fake ones).
func NewTable(ps []Proc) *Table {
	t := &Table{procs: make(map[int]*Proc, len(ps)), kids: make(map[int][]int, len(ps)/2)}
	for i := range ps {
		p := &ps[i]
		t.procs[p.PID] = p
		t.kids[p.PPID] = append(t.kids[p.PPID], p.PID)
	}
	for _, k := range t.kids {
		slices.Sort(k)
	}
	return t
}

// Snapshot reads the whole process table.
func Snapshot(ctx context.Context) (*Table, error) {
	ps, err := readAll(ctx)
	if err != nil {
		return nil, err
	}
	return NewTable(ps), nil
}

// Len is how many processes the table holds.
func (t *Table) Len() int { return len(t.procs) }

// Get returns the process pid, if it was running.
func (t *Table) Get(pid int) (*Proc, bool) {
	p, ok := t.procs[pid]
	return p, ok
}

// Children returns pid's children, lowest pid first.
func (t *Table) Children(pid int) []int { return t.kids[pid] }

// Descendants returns pid's children, theirs and so on, nearest first, at
// most max of them.
func (t *Table) Descendants(pid, max int) []int {
	var out []int
	for next := t.kids[pid]; len(next) > 0 && len(out) < max; {
		var deeper []int
		for _, c := range next {
			if len(out) == max {
				break
			}
			out = append(out, c)
			deeper = append(deeper, t.kids[c]...)
		}
		next = deeper
	}
	return out
}

// Foreground returns the process in the foreground of the terminal that pid
// (a pane's first process) runs on: the leader of the terminal's foreground
// process group, else the group's oldest member, else pid itself.
func (t *Table) Foreground(pid int) int {
	p, ok := t.procs[pid]
	if !ok || p.TPGID <= 0 || p.TPGID == p.PGID && p.PGID == pid {
		return pid
	}
	if l, ok := t.procs[p.TPGID]; ok && l.PGID == p.TPGID && !l.Zombie {
		return l.PID
	}
	best := 0
	for _, q := range t.procs {
		if q.PGID == p.TPGID && q.TTY == p.TTY && !q.Zombie && (best == 0 || q.PID < best) {
			best = q.PID
		}
	}
	if best == 0 {
		return pid
	}
	return best
}

// Info is what detection reads about one process beyond the table.
type Info interface {
	Exe(pid int) string        // executable path, "" if unknown
	Argv(pid int) []string     // argument vector
	Env(pid int) []string      // exec-time environment, KEY=VALUE
	Cwd(pid int) string        // working directory
	Started(pid int) time.Time // start time, zero if unknown
}

// Getenv returns key's value in env (KEY=VALUE entries), last one winning.
func Getenv(env []string, key string) (string, bool) {
	val, found := "", false
	for _, kv := range env {
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			val, found = kv[len(key)+1:], true
		}
	}
	return val, found
}
