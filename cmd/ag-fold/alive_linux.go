package main

import (
	"time"

	pidalive "github.com/agwatch/ag/filters/alive"
)

// startTime is when pid started, as the kernel records it.
func startTime(pid int) (time.Time, bool) { return pidalive.StartTime(pid) }
