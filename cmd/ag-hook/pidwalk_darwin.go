package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// agentProcess walks up from start (ag-hook's parent) with sysctl
// kern.proc.pid: the first ancestor named like the agent wins, else the
// first one with a controlling terminal, else start. On macOS Claude runs
// hooks directly, so the first hop usually matches.
func agentProcess(start int, names []string) (int, string) {
	return walk(start, names, readProc)
}

func readProc(pid int) (proc, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return proc{}, false
	}
	return proc{
		ppid: int(kp.Eproc.Ppid),
		comm: unix.ByteSliceToString(kp.Proc.P_comm[:]),
		tty:  ttyName(kp.Eproc.Tdev),
	}, true
}

// ttyName finds the terminal with device number dev: ptys are
// /dev/ttysNNN with NNN the minor number; NODEV (-1) means none.
func ttyName(dev int32) string {
	if dev == -1 || dev == 0 {
		return ""
	}
	d := uint64(uint32(dev))
	minor := unix.Minor(d)
	for _, p := range []string{"/dev/ttys" + pad3(minor), "/dev/tty" + strconv.FormatUint(uint64(minor), 10)} {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && uint64(uint32(st.Rdev)) == d {
			return p
		}
	}
	ents, _ := os.ReadDir("/dev")
	for _, e := range ents {
		p := "/dev/" + e.Name()
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR && uint64(uint32(st.Rdev)) == d {
			return p
		}
	}
	return ""
}

func pad3(n uint32) string {
	s := strconv.FormatUint(uint64(n), 10)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}
