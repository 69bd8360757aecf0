//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// ttySize is the size of the terminal at path (a background session's
// pty), 0, 0 when it cannot be read. Opening it does not make it ours.
func ttySize(path string) (cols, rows int) {
	if path == "" {
		return 0, 0
	}
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0
	}
	return int(ws.Col), int(ws.Row)
}
