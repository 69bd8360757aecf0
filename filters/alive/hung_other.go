//go:build !linux

package alive

import "time"

// Hung is Linux's alone (it reads /proc); elsewhere a process that
// outlived its terminal counts as running until it exits.
func Hung(pid int, tty string, heard time.Time) bool { return false }
