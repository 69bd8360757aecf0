// Package alive says whether a process still runs: kill(pid, 0) finds it,
// and where the kernel tells when it started, it started no later than the
// moment it was last heard of — else the pid was reused by another
// process. ag-fold checks its sessions' processes with it; readers of the
// state file check the ag-fold that keeps it and the sessions they show.
package alive

import (
	"errors"
	"syscall"
	"time"
)

// Slack forgives clock skew between an event's timestamp and the kernel's
// record of when its process started.
const Slack = 2 * time.Second

// Is reports whether pid runs. A zombie (exited, not yet reaped) does
// not. With heard non-zero, a process that started after heard (plus
// Slack) is another process that took the number. EPERM counts as
// running: the process exists, owned by someone else.
func Is(pid int, heard time.Time) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	start, zombie, ok := Stat(pid)
	if zombie || ok && !heard.IsZero() && start.After(heard.Add(Slack)) {
		return false
	}
	return true
}

// StartTime is when pid started, where the kernel says.
func StartTime(pid int) (time.Time, bool) {
	start, _, ok := Stat(pid)
	return start, ok
}
