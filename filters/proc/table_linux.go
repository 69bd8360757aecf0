//go:build linux

package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// readAll lists /proc and reads each process's stat line: ppid, process
// group, terminal and the terminal's foreground group (tpgid) in one read.
func readAll(ctx context.Context) ([]Proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	out := make([]Proc, 0, len(names))
	buf := make([]byte, 0, 1024)
	for _, name := range names {
		if name == "" || name[0] < '1' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p, err := readStat(pid, buf)
		if err != nil {
			continue // gone since the listing
		}
		out = append(out, p)
	}
	return out, nil
}

// Stat reads one process's entry.
func Stat(pid int) (Proc, error) { return readStat(pid, make([]byte, 0, 1024)) }

func readStat(pid int, buf []byte) (Proc, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, err
	}
	n, err := f.Read(buf[:cap(buf)])
	f.Close()
	if err != nil {
		return Proc{}, err
	}
	return ParseStat(buf[:n])
}

// ParseStat parses a /proc/PID/stat line. The command name may hold spaces
// and parentheses, so fields are counted from the last ')'.
func ParseStat(b []byte) (Proc, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return Proc{}, errors.New("stat: no command name")
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return Proc{}, fmt.Errorf("stat: pid: %w", err)
	}
	// Fields after ")": 3 state, 4 ppid, 5 pgrp, 6 session, 7 tty_nr,
	// 8 tpgid, ... 22 starttime.
	f := bytes.Fields(b[end+1:])
	if len(f) < 20 {
		return Proc{}, errors.New("stat: short line")
	}
	num := func(i int) int64 {
		v, _ := strconv.ParseInt(string(f[i-3]), 10, 64)
		return v
	}
	p := Proc{
		PID:    pid,
		PPID:   int(num(4)),
		PGID:   int(num(5)),
		TTY:    uint64(uint32(num(7))),
		TPGID:  int(num(8)),
		Start:  uint64(num(22)),
		Zombie: len(f[0]) == 1 && (f[0][0] == 'Z' || f[0][0] == 'X'),
	}
	return p, nil
}

// Children lists pid's children from /proc/PID/task/*/children: a few small
// reads where the whole table is hundreds (a process's children are listed
// under the thread that forked them). ok is false where the kernel does not
// keep the lists (CONFIG_PROC_CHILDREN): read the table then.
func Children(pid int) (kids []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	d, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	tasks, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, false
	}
	for _, tid := range tasks {
		b, err := os.ReadFile(dir + tid + "/children")
		if err != nil {
			if os.IsNotExist(err) {
				return nil, false
			}
			continue // the thread ended since the listing
		}
		for _, f := range bytes.Fields(b) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				kids = append(kids, c)
			}
		}
	}
	return kids, true
}
