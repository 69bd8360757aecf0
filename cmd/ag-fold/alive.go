package main

import (
	"errors"
	"syscall"
	"time"

	"github.com/agwatch/ag/filters/fold"
)

// reuseSlack forgives clock skew between a hook's timestamp and the
// kernel's record of when the process started.
const reuseSlack = 2 * time.Second

// alive reports whether the process of a session still runs: kill(pid, 0)
// finds it (EPERM: it exists, owned by someone else), it is no zombie
// (exited, not yet reaped by its parent: on Linux, from /proc), and where
// the start time is known, it started before the session first named it —
// else the pid was reused by another process.
func alive(p fold.Proc) bool {
	if !local(p) {
		return true // no pid: nothing to judge
	}
	err := syscall.Kill(p.PID, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	start, zombie, ok := procStat(p.PID)
	if zombie || ok && !p.Seen.IsZero() && start.After(p.Seen.Add(reuseSlack)) {
		return false
	}
	return true
}

// local reports whether p is a process that can be checked: the fold
// lists only this machine's (another host's pid means nothing here).
func local(p fold.Proc) bool { return p.PID > 0 }
