//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cli

import "io"

// IsTerminal is false where ag cannot ask.
func IsTerminal(io.Reader) bool { return false }

// Expecting says nothing where the terminal cannot be recognised.
func (p Program) Expecting(io.Reader, string) {}
