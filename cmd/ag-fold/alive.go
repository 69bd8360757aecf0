package main

import (
	pidalive "github.com/agwatch/ag/filters/alive"
	"github.com/agwatch/ag/filters/fold"
)

// alive reports whether the process of a session still runs: kill(pid, 0)
// finds it (EPERM: it exists, owned by someone else), it is no zombie
// (exited, not yet reaped by its parent), and where the start time is
// known, it started before the session first named it — else the pid was
// reused by another process (filters/alive, which the state file's readers
// use too).
func alive(p fold.Proc) bool {
	if !local(p) {
		return true // no pid: nothing to judge
	}
	return pidalive.Is(p.PID, p.Seen)
}

// hung reports whether p, alive, lost the terminal it ran on: its pane
// closed and it ignored the hang-up (filters/alive).
func hung(p fold.Proc) bool { return local(p) && pidalive.Hung(p.PID, p.TTY, p.Seen) }

// local reports whether p is a process that can be checked: the fold
// lists only this machine's (another host's pid means nothing here).
func local(p fold.Proc) bool { return p.PID > 0 }
