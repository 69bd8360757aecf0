//go:build !linux && !darwin

package alive

import "time"

// Stat is unknown here; kill(pid, 0) alone decides.
func Stat(pid int) (start time.Time, zombie, ok bool) { return time.Time{}, false, false }
