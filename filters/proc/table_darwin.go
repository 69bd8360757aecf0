//go:build darwin

package proc

import (
	"context"

	"golang.org/x/sys/unix"
)

// readAll asks the kernel for every process's kinfo_proc, which carries the
// terminal's foreground process group (e_tpgid) that gopsutil does not expose.
func readAll(ctx context.Context) ([]Proc, error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, err
	}
	out := make([]Proc, 0, len(kps))
	for i := range kps {
		out = append(out, fromKinfo(&kps[i]))
	}
	return out, nil
}

// Stat reads one process's entry.
func Stat(pid int) (Proc, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Proc{}, err
	}
	return fromKinfo(kp), nil
}

const sZomb = 5 // SZOMB in <sys/proc.h>

func fromKinfo(kp *unix.KinfoProc) Proc {
	tty := uint64(0)
	if kp.Eproc.Tdev != -1 { // NODEV
		tty = uint64(uint32(kp.Eproc.Tdev))
	}
	st := kp.Proc.P_starttime
	return Proc{
		PID:    int(kp.Proc.P_pid),
		PPID:   int(kp.Eproc.Ppid),
		PGID:   int(kp.Eproc.Pgid),
		TPGID:  int(kp.Eproc.Tpgid),
		TTY:    tty,
		Start:  uint64(st.Sec)*1_000_000 + uint64(st.Usec),
		Zombie: kp.Proc.P_stat == sZomb,
	}
}

// Children is not known without the whole table on darwin.
func Children(pid int) ([]int, bool) { return nil, false }
