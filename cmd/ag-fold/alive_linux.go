package main

import (
	"time"

	pidalive "github.com/agwatch/ag/filters/alive"
)

// procStat is when pid started and whether it is a zombie (filters/alive).
func procStat(pid int) (start time.Time, zombie, ok bool) { return pidalive.Stat(pid) }

// parseProcStat reads a /proc/PID/stat line.
func parseProcStat(b []byte) (start time.Time, zombie, ok bool) { return pidalive.ParseStat(b) }
