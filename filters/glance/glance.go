// Package glance is agent state at a glance: an icon per status, the order
// of how urgently a status wants the user (worst-of), and the one-line
// summary of every session ("⏳2 ⚙1 ✓1") that prompts and status lines show.
package glance

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
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

// UnreadIcon stands for an agent ag names but reads nothing of
// (event.ReasonUnread): it is there, what it does is not known.
const UnreadIcon = "?"

// Unread reports whether st is such an agent's: idle only because no
// source says more.
func Unread(st *event.Event) bool {
	return st.Status == event.StatusIdle && st.Reason == event.ReasonUnread
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
	// Stale counts sessions whose state may no longer hold (Event.Stale),
	// in no status.
	Stale int
	// Total counts every session that is not gone.
	Total int
}

// Count tallies states; gone sessions are not counted.
func Count(states []event.Event) Counts {
	var c Counts
	for i := range states {
		c.AddState(&states[i])
	}
	return c
}

// AddState counts one state: by its status, or as stale.
func (c *Counts) AddState(st *event.Event) {
	if st.Stale != "" && st.Status != event.StatusGone && st.Status != "" {
		c.Stale++
		c.Total++
		return
	}
	c.Add(st.Status)
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
// left out, sessions of a host out of reach last: "⏳2 ✗1 ⚙1 ✓3 ?2"; ""
// when nothing is waiting, failed, working, done or unknown.
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

// Shows reports whether the pane two live sessions name should show a
// rather than b. Sessions of one process of an agent that hosts many at
// once (many says which; OpenCode's server) all live in that pane: it shows
// the worst of them (waiting > failed > working > done > idle), the newest
// among equals, so a session at work behind the one the user switched to
// still shows. Otherwise the newer state wins: for an agent that runs one
// session a process, an older session in the pane is one it left.
func Shows(a, b *event.Event, many func(agent string) bool) bool {
	if many != nil && a.PID != 0 && a.PID == b.PID && a.Agent == b.Agent && a.Host == b.Host && many(a.Agent) {
		if ra, rb := Rank(a.Status), Rank(b.Status); ra != rb {
			return ra > rb
		}
	}
	return a.T.After(b.T.Time)
}

// Hosts reports whether states come from more than one host, counting
// this one (self) even when it has none: only then do views name the host.
func Hosts(states []event.Event, self hostname.Self) bool {
	for i := range states {
		if !self.Is(states[i].Host) {
			return true
		}
	}
	return false
}

// Who is a session as views name it: "claude", or "claude@devbox" when
// hosts are shown.
func Who(st *event.Event, hosts bool) string {
	if hosts && st.Host != "" {
		return st.Agent + "@" + st.Host
	}
	return st.Agent
}

// HostSummary is Summary per host when states come from more than one:
// "laptop ⏳1 ✓2 · devbox ?3", this host first, then by name, hosts with
// nothing to show left out. With one host it is Summary.
func HostSummary(states []event.Event, me hostname.Self) string {
	if !Hosts(states, me) {
		return Count(states).Summary()
	}
	self := me.Name
	by := map[string]*Counts{}
	var names []string
	for i := range states {
		h := me.Canon(states[i].Host)
		c := by[h]
		if c == nil {
			c = &Counts{}
			by[h] = c
			names = append(names, h)
		}
		c.AddState(&states[i])
	}
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == self:
			return -1
		case b == self:
			return 1
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, h := range names {
		if s := by[h].Summary(); s != "" {
			parts = append(parts, h+" "+s)
		}
	}
	return strings.Join(parts, " · ")
}

// USD is a cost as every view writes it: "$3.04", "$0.42", "$0.00"; a cost
// too small for a cent, "<$0.01" (rounded it would read as free).
func USD(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 1e9 {
		// No session runs up a billion dollars: a broken or hostile
		// state, written short ("$1.0e+308"), not in 309 digits.
		return "$" + strconv.FormatFloat(v, 'e', 1, 64)
	}
	if v != 0 && v > -0.005 && v < 0.005 {
		return "<$0.01"
	}
	return "$" + strconv.FormatFloat(v, 'f', 2, 64)
}
