//go:build unix

package spool

import (
	"os"
	"syscall"
)

// lock takes an exclusive flock on f. The lock belongs to the open file,
// so separate opens in one process contend like separate processes.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
