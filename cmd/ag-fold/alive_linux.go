package main

import (
	"time"

	proc "github.com/agwatch/ag/filters/alive"
)

// startTime is when pid started, as the kernel records it.
func startTime(pid int) (time.Time, bool) { return proc.StartTime(pid) }
