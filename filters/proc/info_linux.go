//go:build linux

package proc

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"time"
)

// System reads process details from /proc.
type System struct{ Ctx context.Context }

func procPath(pid int, name string) string { return "/proc/" + strconv.Itoa(pid) + "/" + name }

func (System) Exe(pid int) string {
	e, _ := os.Readlink(procPath(pid, "exe"))
	return strings.TrimSuffix(e, " (deleted)")
}

func (System) Argv(pid int) []string { return nulList(procPath(pid, "cmdline")) }

// Env is the exec-time environment: later setenv calls are not in it.
func (System) Env(pid int) []string { return nulList(procPath(pid, "environ")) }

func (System) Cwd(pid int) string {
	c, _ := os.Readlink(procPath(pid, "cwd"))
	return c
}

// userHZ is the unit of /proc/PID/stat's starttime: USER_HZ, 100 on every
// architecture Linux runs Go on (sysconf(_SC_CLK_TCK)).
const userHZ = 100

func (System) Started(pid int) time.Time {
	p, err := Stat(pid)
	if err != nil {
		return time.Time{}
	}
	bt := bootTime()
	if bt.IsZero() {
		return time.Time{}
	}
	return bt.Add(time.Duration(p.Start) * time.Second / userHZ)
}

// bootTime is btime from /proc/stat.
func bootTime() time.Time {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}
	}
	i := bytes.Index(b, []byte("\nbtime "))
	if i < 0 {
		return time.Time{}
	}
	rest := b[i+len("\nbtime "):]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	sec, err := strconv.ParseInt(string(bytes.TrimSpace(rest)), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(sec, 0)
}

func nulList(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return nil
	}
	b = bytes.TrimRight(b, "\x00")
	return strings.Split(string(b), "\x00")
}
