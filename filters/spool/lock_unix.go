//go:build unix

package spool

import (
	"os"
	"syscall"
)

// lock takes a shared (writers) or exclusive (rotation) flock on f. The
// lock belongs to the open file, so separate opens in one process contend
// like separate processes.
func lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
