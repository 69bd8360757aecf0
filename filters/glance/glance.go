// Package glance is agent state at a glance: an icon per status, the order
// of how urgently a status wants the user (worst-of), and the one-line
// summary of every session ("⏳2 ⚙1 ✓1") that prompts and status lines show.
package glance

import (
	"cmp"
	"strconv"
	"strings"
	"time"

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

// Compare orders sessions most urgent first: by Rank, then the longest in
// that status first (the wait that has waited longest), then agent and
// session, so the order is stable.
func Compare(a, b *event.Event) int {
	if c := cmp.Compare(Rank(b.Status), Rank(a.Status)); c != 0 {
		return c
	}
	if c := since(a).Compare(since(b)); c != 0 {
		return c
	}
	return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Session, b.Session))
}

func since(e *event.Event) time.Time {
	if e.Since != nil {
		return e.Since.Time
	}
	return e.T.Time
}

// Counts is how many live sessions are in each status.
type Counts struct {
	Waiting, Failed, Working, Done, Idle int
	// Total counts every session that is not gone.
	Total int
}

// Count tallies states; gone sessions are not counted.
func Count(states []event.Event) Counts {
	var c Counts
	for i := range states {
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
// left out: "⏳2 ✗1 ⚙1 ✓3"; "" when nothing is waiting, failed, working
// or done.
func (c Counts) Summary() string {
	var b strings.Builder
	for _, p := range [...]struct {
		icon string
		n    int
	}{{"⏳", c.Waiting}, {"✗", c.Failed}, {"⚙", c.Working}, {"✓", c.Done}} {
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
