package main

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// clockTicks is USER_HZ, 100 on every Linux ag runs on (it is fixed by the
// kernel ABI for /proc, whatever CONFIG_HZ is).
const clockTicks = 100

// startTime reads when pid started: /proc/PID/stat field 22 (ticks since
// boot) plus btime from /proc/stat.
func startTime(pid int) (time.Time, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	// comm (field 2) may hold spaces and parens: count from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return time.Time{}, false
	}
	fields := bytes.Fields(b[i+1:])
	const starttime = 22 - 3 // fields after comm start at field 3
	if len(fields) <= starttime {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseInt(string(fields[starttime]), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	return boot.Add(time.Duration(ticks) * time.Second / clockTicks), true
}

// bootTime is read once: the liveness check runs every few seconds for
// every session, and /proc/stat is the costliest file it reads.
var bootTime = sync.OnceValues(readBootTime)

func readBootTime() (time.Time, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			sec, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(sec, 0), true
		}
	}
	return time.Time{}, false
}
