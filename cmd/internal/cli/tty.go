//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cli

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether r is a terminal.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlReadTermios)
	return err == nil
}

// Expecting tells a person who ran a filter with nothing piped in what it
// waits for, on one line, as it starts reading their terminal (a cat-like
// filter that just sits there looks hung): "ag-fold: reading events from
// the terminal: pipe ag-tail --follow into it (Ctrl-D ends)".
func (p Program) Expecting(stdin io.Reader, what string) {
	if IsTerminal(stdin) {
		p.Errorf("reading events from the terminal: %s (Ctrl-D ends)", what)
	}
}
