//go:build !linux

package main

import (
	"time"

	pidalive "github.com/agwatch/ag/filters/alive"
)

// startTime is when pid started, where the kernel says (darwin), else unknown.
func startTime(pid int) (time.Time, bool) { return pidalive.StartTime(pid) }
