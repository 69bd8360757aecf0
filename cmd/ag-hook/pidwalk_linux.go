package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// agentProcess walks up from start (ag-hook's parent): the first ancestor
// named like the agent wins (Claude on Linux runs hooks under `sh -c`, a
// short-lived shell with no tty); else the first ancestor with a real
// controlling terminal; else start itself. It reads /proc directly: no
// ps, no process table scan, a few microseconds a hop.
func agentProcess(start int, names []string) (int, string) {
	var buf statBuf // one buffer for every hop, on the stack: a hook's heap is pages it must touch
	return walk(start, names, func(pid int) (proc, bool) { return readProc("/proc", pid, &buf) })
}

// statBuf holds the head of a /proc/<pid>/stat line. What the walk reads
// ends by tty_nr, under 130 bytes (pid, comm of at most 64 bytes, state and
// four numbers), so 256 is room to spare. Small on purpose: the hook's
// deepest call must fit the 4 KB stack a Go program grows to while it
// starts, or the runtime copies it to a new 8 KB one.
type statBuf [256]byte

// readProc reads ppid, comm and tty_nr from root/<pid>/stat: open, one
// read, close (os.ReadFile would add an fstat; every syscall counts here).
func readProc(root string, pid int, buf *statBuf) (proc, bool) {
	fd, err := syscall.Open(root+"/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return proc{}, false
	}
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return proc{}, false
	}
	return parseStat(buf[:n])
}

// parseStat parses "pid (comm) state ppid pgrp session tty_nr …". comm may
// hold spaces and parentheses, so it ends at the last ')'.
func parseStat(b []byte) (proc, bool) {
	open := bytes.IndexByte(b, '(')
	close := bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return proc{}, false
	}
	// After comm: state, ppid, pgrp, session, tty_nr, each one space apart.
	var f [5][]byte
	rest := b[close+1:]
	for i := range f {
		rest = bytes.TrimLeft(rest, " ")
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			return proc{}, false
		}
		f[i], rest = rest[:end], rest[end:]
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	ttyNr, err2 := strconv.ParseInt(string(f[4]), 10, 64)
	if err1 != nil || err2 != nil {
		return proc{}, false
	}
	return proc{ppid: ppid, comm: string(b[open+1 : close]), tty: ttyName(uint64(ttyNr))}, true
}

// ttyName turns a tty_nr (a device number) into its /dev path: Unix98
// ptys (majors 136–143) are /dev/pts/N, virtual consoles /dev/ttyN, serial
// lines /dev/ttySN; anything else is looked up in /dev. 0 means none.
func ttyName(nr uint64) string {
	if nr == 0 {
		return ""
	}
	major := (nr >> 8) & 0xfff
	minor := (nr & 0xff) | ((nr >> 12) & 0xfff00)
	switch {
	case major >= 136 && major <= 143:
		return "/dev/pts/" + strconv.FormatUint((major-136)<<8|minor, 10)
	case major == 4 && minor < 64:
		return "/dev/tty" + strconv.FormatUint(minor, 10)
	case major == 4:
		return "/dev/ttyS" + strconv.FormatUint(minor-64, 10)
	}
	return findDev(nr)
}

// findDev looks for the character device nr among /dev's terminals.
func findDev(nr uint64) string {
	for _, dir := range []string{"/dev/pts", "/dev"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			p := dir + "/" + e.Name()
			var st syscall.Stat_t
			if syscall.Stat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFCHR && uint64(st.Rdev) == nr {
				return p
			}
		}
	}
	return fmt.Sprintf("dev:%d,%d", (nr>>8)&0xfff, (nr&0xff)|((nr>>12)&0xfff00))
}
