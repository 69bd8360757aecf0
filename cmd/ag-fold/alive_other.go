//go:build !linux

package main

import (
	"time"

	pidalive "github.com/agwatch/ag/filters/alive"
)

// procStat is when pid started and whether it is a zombie, where the
// kernel says (darwin), else unknown.
func procStat(pid int) (start time.Time, zombie, ok bool) { return pidalive.Stat(pid) }
