//go:build !linux && !darwin

package alive

import "time"

// StartTime is unknown here; kill(pid, 0) alone decides.
func StartTime(pid int) (time.Time, bool) { return time.Time{}, false }
