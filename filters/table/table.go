// Package table renders ag-fold's states for people: one row per session,
// most urgent first — agent, status, project, pane, how long, context left,
// cost, and what it waits on or does — fitted to a terminal's width and
// coloured only when asked. States in, text out; nothing here looks at a
// terminal or the environment.
package table

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/glance"
	"github.com/agwatch/ag/filters/safetext"
)

// Options say how to render.
type Options struct {
	// Width is the columns to fit in; 0 or less: no limit.
	Width int
	// Color adds ANSI colours (the caller knows whether stdout is a
	// terminal and whether NO_COLOR is set).
	Color bool
	// Now is when "for how long" is measured to.
	Now time.Time
}

// A column: its cells and the width it gets (fit).
type column struct {
	head  string
	cells []string
	right bool // numbers: aligned right
	w     int
}

// Row is one session's line.
type Row struct {
	State event.Event
	Text  string
}

// Render returns the table, a header line then one line per session, and
// a footer saying why the rows marked stale may no longer hold; "" when
// there are no states.
func Render(states []event.Event, o Options) string {
	head, rows := Rows(states, o)
	if head == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(head + "\n")
	for _, r := range rows {
		b.WriteString(r.Text + "\n")
	}
	for _, l := range Footer(states, o) {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// Footer is a line per reason the stale states give, with how many give
// it: "? 2 stale: the ag-fold that kept the state file has stopped". A
// stale row's status shows "?" where its icon was, as the prompt segment
// does: what the agent does now is not known.
func Footer(states []event.Event, o Options) []string {
	var why []string
	n := map[string]int{}
	for _, s := range states {
		if s.Stale == "" || s.Status == event.StatusGone {
			continue
		}
		if n[s.Stale] == 0 {
			why = append(why, s.Stale)
		}
		n[s.Stale]++
	}
	var out []string
	for _, w := range why {
		l := fmt.Sprintf("? %d stale: %s", n[w], oneLine(w))
		if o.Width > 0 {
			l = Cut(l, o.Width)
		}
		if o.Color {
			l = "\x1b[" + dim + "m" + l + "\x1b[0m"
		}
		out = append(out, l)
	}
	return out
}

// Rows is the table as its header and its rows, most urgent first
// (glance.Compare), each with its state; lines have no newline.
func Rows(states []event.Event, o Options) (string, []Row) {
	if len(states) == 0 {
		return "", nil
	}
	rows := slices.Clone(states)
	slices.SortStableFunc(rows, func(a, b event.Event) int { return glance.Compare(&a, &b) })

	cols := []*column{
		{head: "HOST"},
		{head: "AGENT"},
		{head: "STATUS"},
		{head: "PROJECT"},
		{head: "PANE"},
		{head: "FOR", right: true},
		{head: "CTX", right: true},
		{head: "COST", right: true},
		{head: "WHAT"},
	}
	hosts := map[string]bool{}
	for _, s := range rows {
		hosts[s.Host] = true
		for i, v := range []string{s.Host, s.Agent, statusCell(s), project(s), paneCell(s),
			age(o.Now, s), ctxLeft(s), cost(s), what(s)} {
			// Every cell, not WHAT alone: an agent's name, a pane or a
			// host from a broker is anyone's text.
			cols[i].cells = append(cols[i].cells, safetext.Line(v, safetext.FieldChars))
		}
	}
	if len(hosts) < 2 { // one machine: it goes without saying
		cols = cols[1:]
	}
	cols = slices.DeleteFunc(cols, func(c *column) bool { // a column with nothing to say
		return c.head != "WHAT" && !slices.ContainsFunc(c.cells, func(v string) bool { return v != "" })
	})
	cols = fit(cols, o.Width)

	line := func(cell func(c *column) (text, color string)) string {
		l := lineWriter{left: o.Width, color: o.Color}
		if o.Width <= 0 {
			l.left = -1
		}
		for i, c := range cols {
			text, color := cell(c)
			text = Cut(text, c.w)
			pad := strings.Repeat(" ", c.w-Width(text))
			if i > 0 {
				l.add("  ", "")
			}
			switch {
			case c.right:
				l.add(pad, "")
				l.add(text, color)
			case i == len(cols)-1: // no trailing blanks
				l.add(text, color)
			default:
				l.add(text, color)
				l.add(pad, "")
			}
		}
		return strings.TrimRight(l.b.String(), " ")
	}
	head := line(func(c *column) (string, string) { return c.head, bold })
	out := make([]Row, len(rows))
	for r := range rows {
		out[r] = Row{State: rows[r], Text: line(func(c *column) (string, string) {
			switch c.head {
			case "STATUS":
				if stale(rows[r]) {
					return c.cells[r], dim
				}
				return c.cells[r], statusColor(rows[r].Status)
			case "CTX":
				return c.cells[r], ctxColor(rows[r])
			}
			if rows[r].Status == event.StatusGone || rows[r].Status == event.StatusIdle || stale(rows[r]) {
				return c.cells[r], dim
			}
			return c.cells[r], ""
		})}
	}
	return head, out
}

// fit sets each column's width: what its cells need, then, past width,
// the steps below one by one until the table fits — long cells cut, the
// least needed columns dropped — and what is left over back to WHAT and
// PROJECT.
func fit(cols []*column, width int) []*column {
	for _, c := range cols {
		c.w = need(c)
	}
	if width <= 0 {
		return cols
	}
	total := func() int {
		n := 2 * (len(cols) - 1)
		for _, c := range cols {
			n += c.w
		}
		return n
	}
	find := func(head string) int { return slices.IndexFunc(cols, func(c *column) bool { return c.head == head }) }
	for _, st := range fitSteps {
		if total() <= width {
			break
		}
		i := find(st.head)
		switch {
		case i < 0:
		case st.floor < 0:
			cols = slices.Delete(cols, i, i+1)
		default:
			c := cols[i]
			c.w = max(min(c.w, max(st.floor, Width(c.head))), c.w-(total()-width))
		}
	}
	for _, head := range []string{"WHAT", "PROJECT"} {
		if i := find(head); i >= 0 && total() < width {
			cols[i].w = min(need(cols[i]), cols[i].w+width-total())
		}
	}
	return cols
}

// fitSteps: cut a column to floor columns, or (floor -1) drop it.
var fitSteps = []struct {
	head  string
	floor int
}{
	{"PROJECT", 24}, {"HOST", 16}, {"WHAT", 32}, {"PROJECT", 14},
	{"COST", -1}, {"CTX", -1}, {"WHAT", 20}, {"PANE", -1},
	{"HOST", 8}, {"PROJECT", 8}, {"FOR", -1}, {"WHAT", 12},
	{"PROJECT", -1}, {"HOST", -1}, {"WHAT", 4},
}

// need is the width a column's header and cells take uncut.
func need(c *column) int {
	w := Width(c.head)
	for _, v := range c.cells {
		w = max(w, Width(v))
	}
	return w
}

// stale: the state may no longer hold (no ag-fold keeps the state file,
// or its host is out of reach).
func stale(s event.Event) bool { return s.Stale != "" && s.Status != event.StatusGone }

func statusCell(s event.Event) string {
	if stale(s) {
		return "? " + s.Status
	}
	if glance.Unread(&s) {
		return glance.UnreadIcon
	}
	if icon := glance.Icon(s.Status, s.Attention); icon != "" {
		return icon + " " + s.Status
	}
	return "  " + s.Status // idle and gone have no icon: the words still line up
}

// project is the directory's last element and the branch: "api:main".
func project(s event.Event) string {
	if s.Cwd == "" {
		return ""
	}
	p := filepath.Base(filepath.Clean(s.Cwd))
	if s.Branch != "" {
		p += ":" + s.Branch
	}
	return p
}

// age is how long the session has been in its status: 45s, 12m, 3h05m, 2d4h.
func age(now time.Time, s event.Event) string {
	t := s.T.Time
	if s.Since != nil {
		t = s.Since.Time
	}
	if now.IsZero() || t.IsZero() {
		return ""
	}
	d := max(now.Sub(t), 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd%dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// ctxColor warns of a context nearly full: red at 10 % left or less,
// yellow at 25 %.
func ctxColor(s event.Event) string {
	switch {
	case s.Context == nil || s.Context.LeftPct == nil:
		return ""
	case *s.Context.LeftPct <= 10:
		return red
	case *s.Context.LeftPct <= 25:
		return yellow
	}
	return ""
}

func ctxLeft(s event.Event) string {
	if s.Context == nil || s.Context.LeftPct == nil {
		return ""
	}
	return fmt.Sprintf("%d%%", *s.Context.LeftPct)
}

func cost(s event.Event) string {
	if s.CostUSD == nil {
		return ""
	}
	return glance.USD(*s.CostUSD)
}

// what is what the session waits on or does: "Bash: rm -rf build/",
// "question: Which database?", the prompt it works on or finished.
func what(s event.Event) string {
	var w string
	switch s.Status {
	case event.StatusWaiting:
		switch s.Attention {
		case event.AttnQuestion, event.AttnPlan:
			w = join(s.Attention, s.Text)
		default:
			w = join(s.Tool, s.Text)
		}
	case event.StatusWorking:
		w = join(s.Tool, s.Text)
		if s.Tool == "" {
			w = s.Prompt
		}
		if s.Pending > 0 {
			w = strings.TrimSpace(fmt.Sprintf("%s (+%d in background)", w, s.Pending))
		}
	case event.StatusFailed:
		w = join(s.Reason, s.Text)
	case event.StatusGone:
		w = s.Reason
	default:
		w = s.Prompt
		if glance.Unread(&s) {
			w = "not known what it does"
		}
	}
	return oneLine(w)
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ": " + b
}

// oneLine makes text one line: newlines, tabs and other control
// characters become spaces, runs of spaces one.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)
	}), " ")
}

// paneCell is where to find the session: its pane, else, for a background
// session (no terminal of its own), "bg" and the job its agent's commands
// take (claude attach <job>).
func paneCell(s event.Event) string {
	if s.Pane == "" && s.Where == event.WhereBackground {
		return strings.TrimSpace("bg " + s.Job)
	}
	return s.Pane
}
