//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
)

// eachProc calls f with the pid and /proc directory of every process, until
// f returns false (Linux; elsewhere there are none: the e2e runs on linux).
func eachProc(f func(pid int, dir string) bool) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if !f(pid, filepath.Join("/proc", e.Name())) {
			return
		}
	}
}
