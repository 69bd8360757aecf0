//go:build !linux && !darwin

package proc

import (
	"context"
	"errors"
)

func readAll(ctx context.Context) ([]Proc, error) {
	return nil, errors.New("process table: not supported on this system")
}

// Stat reads one process's entry.
func Stat(pid int) (Proc, error) {
	return Proc{}, errors.New("process table: not supported on this system")
}

// Children is not known without the whole table here.
func Children(pid int) ([]int, bool) { return nil, false }
