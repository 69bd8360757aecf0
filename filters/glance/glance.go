// Package glance is agent state at a glance: an icon per status, the order
// of how urgently a status wants the user (worst-of), and the one-line
// summary of every session ("⏳2 ⚙1 ✓1") that prompts and status lines show.
package glance

import (
	"strconv"
	"strings"

	"github.com/agwatch/ag/filters/event"
)

// Icon is the status (and a wait's attention) as one symbol; idle and gone
// have none.
func Icon(status, attention string) string {
	switch status {
	case event.StatusWaiting:
		switch attention {
		case event.AttnQuestion:
			return "❓"
		case event.AttnPlan:
			return "📋"
		}
		return "⏳"
	case event.StatusWorking:
		return "⚙"
	case event.StatusDone:
		return "✓"
	case event.StatusFailed:
		return "✗"
	}
	return ""
}

// StaleIcon stands for a session whose state nobody keeps current any
// more (the ag-fold that kept the state file stopped): the agent is there,
// what it does is not known.
const StaleIcon = "?"

// Rank orders statuses by how much they want the user: waiting, then
// failed (a turn ended in an error), working, done, idle; gone and unknown
// rank lowest. Worst-of over several sessions keeps the highest.
func Rank(status string) int {
	switch status {
	case event.StatusWaiting:
		return 5
	case event.StatusFailed:
		return 4
	case event.StatusWorking:
		return 3
	case event.StatusDone:
		return 2
	case event.StatusIdle:
		return 1
	}
	return 0
}

// Counts is how many live sessions are in each status.
type Counts struct {
	Waiting, Failed, Working, Done, Idle int
	// Stale counts sessions whose state may no longer hold (Event.Stale),
	// in no status.
	Stale int
	// Total counts every session that is not gone.
	Total int
}

// Count tallies states; gone sessions are not counted, stale ones only as
// stale.
func Count(states []event.Event) Counts {
	var c Counts
	for i := range states {
		if states[i].Stale != "" && states[i].Status != event.StatusGone {
			c.Stale++
			c.Total++
			continue
		}
		c.Add(states[i].Status)
	}
	return c
}

// Add counts one session in status.
func (c *Counts) Add(status string) {
	switch status {
	case event.StatusWaiting:
		c.Waiting++
	case event.StatusFailed:
		c.Failed++
	case event.StatusWorking:
		c.Working++
	case event.StatusDone:
		c.Done++
	case event.StatusIdle:
		c.Idle++
	default:
		return
	}
	c.Total++
}

// Summary is the counts as icons, most urgent first, zero counts and idle
// left out, stale sessions last: "⏳2 ✗1 ⚙1 ✓3", "?2"; "" when nothing is
// waiting, failed, working, done or stale.
func (c Counts) Summary() string {
	var b strings.Builder
	for _, p := range [...]struct {
		icon string
		n    int
	}{{"⏳", c.Waiting}, {"✗", c.Failed}, {"⚙", c.Working}, {"✓", c.Done}, {StaleIcon, c.Stale}} {
		if p.n == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p.icon)
		b.WriteString(strconv.Itoa(p.n))
	}
	return b.String()
}
