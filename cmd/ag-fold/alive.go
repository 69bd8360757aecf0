package main

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/agwatch/ag/filters/fold"
)

// reuseSlack forgives clock skew between a hook's timestamp and the
// kernel's record of when the process started.
const reuseSlack = 2 * time.Second

// hostname does not change under a running ag-fold.
var hostname = sync.OnceValues(os.Hostname)

// alive reports whether the process of a session still runs: kill(pid, 0)
// finds it (EPERM: it exists, owned by someone else), it is no zombie
// (exited, not yet reaped by its parent: on Linux, from /proc), and where
// the start time is known, it started before the session first named it —
// else the pid was reused by another process.
func alive(p fold.Proc) bool {
	if !local(p) {
		return true // no pid, or another machine's process: not ours to judge
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

// local reports whether p is a process of this machine that can be checked.
func local(p fold.Proc) bool {
	if p.PID <= 0 {
		return false
	}
	if p.Host != "" {
		if h, err := hostname(); err == nil && h != p.Host {
			return false
		}
	}
	return true
}
