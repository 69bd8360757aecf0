package alive

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, 100 on every Linux ag runs on (it is fixed by the
// kernel ABI for /proc, whatever CONFIG_HZ is).
const clockTicks = 100

// Stat reads, from /proc/PID/stat, when pid started (field 22, ticks since
// boot, plus btime from /proc/stat) and whether it has exited and waits to
// be reaped (state Z, or X): a zombie is dead, though kill(pid, 0) still
// finds it (tmux reaps an exited pane's process late: OpenCode with a
// plugin loaded stayed a zombie for 40 s and more).
func Stat(pid int) (start time.Time, zombie, ok bool) {
	var buf [1024]byte // the fields up to starttime come well within it
	b, ok := readStat(pid, buf[:])
	if !ok {
		return time.Time{}, false, false
	}
	return ParseStat(b)
}

// readStat reads /proc/PID/stat into buf: open, one read, close (this
// runs every --check for every session, and os.ReadFile would add a
// poller registration and an fstat).
func readStat(pid int, buf []byte) ([]byte, bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	n, err := syscall.Read(fd, buf)
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return nil, false
	}
	return buf[:n], true
}

// statFields are the fields of a /proc/PID/stat line after comm (field
// 2), which may hold spaces and parens: counted from the last ')'. The
// first is field 3, the state.
func statFields(b []byte) ([][]byte, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	return bytes.Fields(b[i+1:]), true
}

// ParseStat reads a /proc/PID/stat line (see Stat).
func ParseStat(b []byte) (start time.Time, zombie, ok bool) {
	fields, ok := statFields(b)
	if !ok {
		return time.Time{}, false, false
	}
	const starttime = 22 - 3 // fields after comm start at field 3
	if len(fields) <= starttime {
		return time.Time{}, false, false
	}
	zombie = string(fields[0]) == "Z" || string(fields[0]) == "X"
	ticks, err := strconv.ParseInt(string(fields[starttime]), 10, 64)
	if err != nil {
		return time.Time{}, zombie, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, zombie, false
	}
	return boot.Add(time.Duration(ticks) * time.Second / clockTicks), zombie, true
}

// bootTime is read once: the liveness check runs every few seconds for
// every session, and /proc/stat is the costliest file it reads.
var bootTime = sync.OnceValues(readBootTime)

func readBootTime() (time.Time, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			sec, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(sec, 0), true
		}
	}
	return time.Time{}, false
}
