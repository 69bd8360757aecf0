package main

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/agwatch/ag/filters/fold"
)

// liveness answers alive with a pidfd per process once it has been found
// alive: every --check then costs one poll(2) per session, where the /proc
// check opens, reads and parses a file for each (most of an idle ag-fold's
// CPU). A pidfd holds the process itself, not its number, so a reused pid
// cannot pass for it.
type liveness struct {
	fds   map[procKey]*pidfd
	swept time.Time
}

type procKey struct {
	pid  int
	seen int64
	host string
}

type pidfd struct {
	fd   int
	used time.Time
}

// forgetAfter: a pidfd not asked about for this long belongs to a session
// that ended or went; it is closed.
const forgetAfter = time.Minute

func newLiveness() func(fold.Proc) bool {
	l := &liveness{fds: map[procKey]*pidfd{}}
	return l.alive
}

func (l *liveness) alive(p fold.Proc) bool {
	now := time.Now()
	l.sweep(now)
	k := procKey{p.PID, p.Seen.UnixNano(), p.Host}
	if d, ok := l.fds[k]; ok {
		d.used = now
		if !exited(d.fd) {
			return true
		}
		unix.Close(d.fd)
		delete(l.fds, k)
		return false
	}
	if !alive(p) {
		return false
	}
	if !local(p) {
		return true
	}
	fd, err := unix.PidfdOpen(p.PID, 0)
	if err != nil {
		return true // kernel before 5.3: the /proc check stays, every time
	}
	// The pid may have been reused between the check and the open: with
	// the process held, check once more that it is the one first seen.
	if !alive(p) {
		unix.Close(fd)
		return false
	}
	l.fds[k] = &pidfd{fd, now}
	return true
}

// exited reports whether the pidfd's process has ended (it is readable).
func exited(fd int) bool {
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(pfd, 0)
	return err == nil && n > 0 && pfd[0].Revents != 0
}

// sweep closes, at most twice a minute, the pidfds nobody asked about.
func (l *liveness) sweep(now time.Time) {
	if now.Sub(l.swept) < forgetAfter/2 {
		return
	}
	l.swept = now
	for k, d := range l.fds {
		if now.Sub(d.used) > forgetAfter {
			unix.Close(d.fd)
			delete(l.fds, k)
		}
	}
}
