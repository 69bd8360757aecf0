//go:build !linux

package main

import (
	"time"

	proc "github.com/agwatch/ag/filters/alive"
)

// startTime is when pid started, where the kernel says (darwin), else unknown.
func startTime(pid int) (time.Time, bool) { return proc.StartTime(pid) }
