//go:build !darwin

package main

import (
	"context"
	"fmt"
)

const isDarwin = false

func newDarwin(name string) (backend, error) {
	return nil, fmt.Errorf("%s: only on macOS", name)
}

func terminalFrontmost(context.Context) bool { return true }
