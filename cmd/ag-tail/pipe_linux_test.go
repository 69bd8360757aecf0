package main

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestWidenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	widenPipe(w)
	if n, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || n != 1<<20 {
		t.Fatalf("pipe capacity %d, %v; want 1 MiB", n, err)
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	widenPipe(f) // a file is left alone
	f.Close()
}
