// Package hooktime takes an event's time from a hook payload's own clock
// when it is plausible.
package hooktime

import "time"

// Skew is how far a payload's time may be from the hook's clock and
// still be taken.
const Skew = 10 * time.Minute

// Or is t when it is set and within Skew of now, else now: the agent's
// clock says when it happened (a detached hook may run late), but a
// payload of another day, or none, is not believed.
func Or(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	if d := now.Sub(t); d > Skew || d < -Skew {
		return now
	}
	return t
}
