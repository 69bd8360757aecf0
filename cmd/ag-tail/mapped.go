//go:build linux || darwin

package main

import (
	"io"
	"os"
	"runtime/debug"
	"syscall"
	"unsafe"
)

// window is how much of a file one mapping covers: a replay's RSS grows by
// a window per worker while it is read (the pages are the page cache's).
const window = 4 << 20

// readMapped hands on the complete lines the file holds beyond s.off,
// reading them where the page cache has them, through windows mapped one
// after another, rather than copying them out with read(2): a replay
// reads gigabytes, and the copy was a sixth of ag-tail's time
// (doc/performance.md). Less than a read's worth, or a line longer than a
// window, is left to read(2), as is every file when mapping fails.
func (k *sink) readMapped(s *source) {
	if k.t.noMap {
		return
	}
	st, err := s.f.Stat()
	if err != nil {
		return
	}
	size := st.Size()
	page := int64(os.Getpagesize())
	moved := false
	for size-s.off >= chunk && !k.t.stopped() {
		base := s.off &^ (page - 1)
		m, err := syscall.Mmap(int(s.f.Fd()), base, int(min(size-base, window)), syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			break
		}
		before := s.off
		faulted := k.mappedLines(s, m, m[s.off-base:])
		syscall.Munmap(m)
		moved = true
		if faulted || s.off == before {
			break
		}
	}
	if moved {
		s.f.Seek(s.off, io.SeekStart)
	}
}

// mappedLines hands on the complete lines in m. A file cut shorter while
// it is mapped faults on the pages it lost; that fault ends the window
// (true) instead of the program, and the lines before it stand: read(2)
// then finds the file's new end, as after any truncation.
func (k *sink) mappedLines(s *source, m, from []byte) (faulted bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(interface{ Addr() uintptr })
			if !ok || !inside(f.Addr(), m) {
				panic(r)
			}
			faulted = true
		}
	}()
	k.lines(s, from, false)
	return false
}

// inside reports whether addr is in m.
func inside(addr uintptr, m []byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	return addr >= p && addr < p+uintptr(len(m))
}
