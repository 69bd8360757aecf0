package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// widenPipe raises the capacity of a pipe on f to 1 MiB (Linux's default
// fs.pipe-max-size; best effort). At the default 64 KiB a replay's writer
// and the reader across the pipe take turns every batch, and on two cores
// the ping-pong cost ag-tail --once | ag-fold a fifth of its wall time
// (make bench: TestScaleReplay).
func widenPipe(f *os.File) {
	if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
		unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20)
	}
}
