package alive

import (
	"time"

	"golang.org/x/sys/unix"
)

// sZomb is a process's p_stat once it has exited and waits to be reaped
// (<sys/proc.h>).
const sZomb = 5

// Stat asks the kernel (sysctl kern.proc.pid) when pid started and
// whether it is a zombie.
func Stat(pid int) (start time.Time, zombie, ok bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return time.Time{}, false, false
	}
	tv := kp.Proc.P_starttime
	return time.Unix(int64(tv.Sec), int64(tv.Usec)*1000), kp.Proc.P_stat == sZomb, true
}
