// Package tmuxopts turns session states into tmux user options: what each
// agent pane, each window holding agent panes, and the server as a whole
// should carry, and the fewest set-option commands that get tmux there.
// It is pure; ag-fold --tmux runs the commands.
//
// Pane options (read by pane-border-format, or in a window format as the
// active pane's): @ag_agent @ag_session @ag_status @ag_icon @ag_attention
// @ag_tool @ag_model @ag_context_left @ag_limit_5h @ag_limit_week.
// Window options, the worst-of its agent panes (waiting > failed > working
// > done > idle): @ag_window_agent @ag_window_status @ag_window_icon
// @ag_window_attention @ag_window_tool. They have their own names because a
// pane's option shadows the window's of the same name in every format that
// has a pane. Global options: @ag_waiting @ag_failed @ag_working @ag_done
// (counts of live sessions) and @ag_summary ("⏳2 ✓1").
package tmuxopts

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/glance"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/safetext"
)

// Pane options, in the order they are set.
var PaneKeys = []string{"@ag_agent", "@ag_session", "@ag_status", "@ag_icon", "@ag_attention",
	"@ag_tool", "@ag_model", "@ag_context_left", "@ag_limit_5h", "@ag_limit_week"}

// Window options.
var WindowKeys = []string{"@ag_window_agent", "@ag_window_status", "@ag_window_icon",
	"@ag_window_attention", "@ag_window_tool"}

// Global options.
var GlobalKeys = []string{"@ag_waiting", "@ag_failed", "@ag_working", "@ag_done", "@ag_summary"}

// Scope of a Target.
const (
	ScopePane   = 'p'
	ScopeWindow = 'w'
	ScopeGlobal = 'g'
)

// Target is where options go: a pane (%3), a window (@1) or the server.
type Target struct {
	Scope byte
	ID    string
}

// Values maps option names to values; a name absent is unset.
type Values map[string]string

// Set is the options of every target.
type Set map[Target]Values

// Unknown marks a value in an applied Set that may or may not be in tmux
// (left by an earlier run): it differs from every desired value, so the
// option is set or unset.
const Unknown = "\x00?"

// Pane is a tmux pane as list-panes reports it.
type Pane struct {
	ID, Window, TTY string
}

// PaneValues is what one session's state puts on its pane.
func PaneValues(st *event.Event) Values {
	v := Values{}
	put := func(k, s string) {
		if s = clean(s); s != "" {
			v[k] = s
		}
	}
	put("@ag_agent", st.Agent)
	put("@ag_session", st.Session)
	put("@ag_status", st.Status)
	if glance.Unread(st) {
		put("@ag_icon", glance.UnreadIcon) // named, not read: not known
	} else {
		put("@ag_icon", glance.Icon(st.Status, st.Attention))
	}
	if st.Status == event.StatusWaiting {
		put("@ag_attention", st.Attention)
	}
	if st.Status == event.StatusWaiting || st.Status == event.StatusWorking {
		put("@ag_tool", st.Tool)
	}
	put("@ag_model", st.Model)
	if st.Context != nil && st.Context.LeftPct != nil {
		put("@ag_context_left", strconv.Itoa(*st.Context.LeftPct))
	}
	for _, l := range st.Limits {
		pct := strconv.Itoa(int(l.UsedPct + 0.5))
		switch {
		case l.Window == "5h" || l.Minutes == 300:
			put("@ag_limit_5h", pct)
		case l.Window == "7d" || l.Minutes == 10080:
			put("@ag_limit_week", pct)
		}
	}
	return v
}

// clean makes a value safe to show in a status line (safetext.Tmux): no
// control or bidi characters, every '#' doubled (tmux shows "#" and reads
// no #[style], #{…} or #(…) in it), at most 64 runes, and no trailing ';'
// (tmux would read it as "this, then a new command"). Statuses and ids
// pass unchanged; a tool or model name from the agent is data, not format.
func clean(s string) string {
	return strings.TrimRight(safetext.Tmux(s, 64), ";")
}

// Model keeps the latest state of every live session. Sessions of other
// hosts (a workstation merging its hosts' states) count in the global
// options but never go on a pane here: their %3 is not this server's.
type Model struct {
	self     hostname.Self
	sessions map[string]*event.Event // pointers: Desired walks thousands on every change
	// Many says which agents host several sessions in one process: their
	// pane shows the worst of them (glance.Shows). Nil: none.
	Many func(agent string) bool
	// gone remembers when sessions went, so a replayed older state does
	// not bring one back.
	gone map[string]event.Event
}

// NewModel returns an empty Model for the host self.
func NewModel(self hostname.Self) *Model {
	return &Model{self: self, sessions: map[string]*event.Event{}, gone: map[string]event.Event{}}
}

// Key names a state's session the way ag-fold keys it, host included.
func Key(st *event.Event) string {
	h := ""
	if st.Host != "" {
		h = st.Host + "\x00"
	}
	switch {
	case st.Session != "":
		return h + st.Agent + "\x00" + st.Session
	case st.Pane != "":
		return h + "\x00pane\x00" + st.Pane
	}
	return h + "\x00pid\x00" + strconv.Itoa(st.PID)
}

// maxGone bounds the memory of gone sessions.
const maxGone = 4096

// Update takes a state in; a gone session is forgotten, so its options are
// cleared. A state older than the one held (by time, then gen) changes
// nothing: a replay never overwrites a newer option.
func (m *Model) Update(st *event.Event) {
	k := Key(st)
	if old, ok := m.sessions[k]; ok && older(st, old) {
		return
	}
	if old, ok := m.gone[k]; ok && older(st, &old) {
		return
	}
	if st.Status == event.StatusGone || st.Status == "" {
		delete(m.sessions, k)
		if len(m.gone) >= maxGone {
			clear(m.gone)
		}
		m.gone[k] = event.Event{T: st.T, Gen: st.Gen}
		return
	}
	delete(m.gone, k)
	// Keep only what the options show: the model outlives many states.
	m.sessions[k] = &event.Event{T: st.T, Agent: st.Agent, Session: st.Session, Pane: st.Pane,
		TTY: st.TTY, PID: st.PID, Host: st.Host, Status: st.Status, Attention: st.Attention, Tool: st.Tool,
		Model: st.Model, Context: st.Context, Limits: st.Limits, Gen: st.Gen, Stale: st.Stale, Reason: st.Reason}
}

// older reports whether st is older than held: earlier, or as old with a
// lower gen. (The same state again sets the same values: no command.)
func older(st, held *event.Event) bool {
	if c := st.T.Compare(held.T.Time); c != 0 {
		return c < 0
	}
	return st.Gen < held.Gen
}

// Len is the number of live sessions.
func (m *Model) Len() int { return len(m.sessions) }

// Panes lists the panes this host's live sessions name, with the tty each
// session had there (Window unset), sorted.
func (m *Model) Panes() []Pane {
	var out []Pane
	for _, s := range m.sessions {
		if s.Pane != "" && m.self.Is(s.Host) {
			out = append(out, Pane{ID: s.Pane, TTY: s.TTY})
		}
	}
	slices.SortFunc(out, func(a, b Pane) int { return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.TTY, b.TTY)) })
	return slices.Compact(out)
}

// Desired is the options every target should carry, given the server's
// panes. A session's pane must exist there, and when both know the tty it
// must match (pane ids are reused by a new tmux server; an old session from
// the spool must not light up today's %3). When several sessions name one
// pane the newest wins, except among the sessions of one process of an
// agent that hosts many (Many), where the worst does; a window takes the
// worst of its panes.
func (m *Model) Desired(panes map[string]Pane) Set {
	byPane := map[string]*event.Event{}
	var counts glance.Counts
	others := false // sessions of other hosts: the summary names hosts
	for _, s := range m.sessions {
		counts.AddState(s)
		others = others || !m.self.Is(s.Host)
		p, ok := panes[s.Pane]
		if !m.self.Is(s.Host) || s.Pane == "" || !ok || (s.TTY != "" && p.TTY != "" && s.TTY != p.TTY) {
			continue
		}
		if cur := byPane[s.Pane]; cur == nil || glance.Shows(s, cur, m.Many) ||
			(!glance.Shows(cur, s, m.Many) && Key(s) < Key(cur)) {
			byPane[s.Pane] = s
		}
	}
	set := Set{}
	byWindow := map[string]*event.Event{}
	for id, s := range byPane {
		set[Target{ScopePane, id}] = PaneValues(s)
		w := panes[id].Window
		if w == "" {
			continue
		}
		cur := byWindow[w]
		if cur == nil || worse(s, cur) {
			byWindow[w] = s
		}
	}
	for w, s := range byWindow {
		pv := PaneValues(s)
		wv := Values{}
		for _, k := range []string{"@ag_agent", "@ag_status", "@ag_icon", "@ag_attention", "@ag_tool"} {
			if x, ok := pv[k]; ok {
				wv["@ag_window_"+k[len("@ag_"):]] = x
			}
		}
		set[Target{ScopeWindow, w}] = wv
	}
	g := Values{
		"@ag_waiting": strconv.Itoa(counts.Waiting), "@ag_failed": strconv.Itoa(counts.Failed),
		"@ag_working": strconv.Itoa(counts.Working), "@ag_done": strconv.Itoa(counts.Done),
	}
	summary := counts.Summary() // HostSummary's, with this host alone
	if others {
		all := make([]event.Event, 0, len(m.sessions))
		for _, s := range m.sessions {
			all = append(all, *s)
		}
		summary = glance.HostSummary(all, m.self)
	}
	if s := clean(summary); s != "" {
		g["@ag_summary"] = s
	}
	set[Target{ScopeGlobal, ""}] = g
	return set
}

// worse reports whether a outranks b for a window: the status that wants
// the user more, then the newer state, then the lower pane id (stable).
func worse(a, b *event.Event) bool {
	if ra, rb := glance.Rank(a.Status), glance.Rank(b.Status); ra != rb {
		return ra > rb
	}
	if !a.T.Equal(b.T.Time) {
		return a.T.After(b.T.Time)
	}
	return a.Pane < b.Pane
}

// Stale marks every option of a target as Unknown in applied: an earlier
// run may have left them.
func Stale(applied Set, t Target) {
	keys := PaneKeys
	switch t.Scope {
	case ScopeWindow:
		keys = WindowKeys
	case ScopeGlobal:
		keys = GlobalKeys
	}
	v := Values{}
	for _, k := range keys {
		v[k] = Unknown
	}
	applied[t] = v
}

// Diff returns the set-option commands that turn applied into desired, in
// a stable order (panes, windows, global; by id; by key), and records them
// in applied. Options of targets absent from desired are unset.
func Diff(applied, desired Set) [][]string {
	var targets []Target
	for t := range applied {
		targets = append(targets, t)
	}
	for t := range desired {
		if _, ok := applied[t]; !ok {
			targets = append(targets, t)
		}
	}
	slices.SortFunc(targets, func(a, b Target) int {
		if a.Scope != b.Scope {
			return scopeOrder(a.Scope) - scopeOrder(b.Scope)
		}
		return compareIDs(a.ID, b.ID)
	})
	var cmds [][]string
	for _, t := range targets {
		have, want := applied[t], desired[t]
		var keys []string
		for k := range have {
			keys = append(keys, k)
		}
		for k := range want {
			if _, ok := have[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			hv, hok := have[k]
			wv, wok := want[k]
			switch {
			case wok && (!hok || hv != wv):
				cmds = append(cmds, setCmd(t, k, wv))
			case !wok && hok:
				cmds = append(cmds, unsetCmd(t, k))
			}
		}
		if len(want) == 0 {
			delete(applied, t)
			continue
		}
		v := make(Values, len(want))
		for k, x := range want {
			v[k] = x
		}
		applied[t] = v
	}
	return cmds
}

func scopeOrder(s byte) int {
	switch s {
	case ScopePane:
		return 0
	case ScopeWindow:
		return 1
	}
	return 2
}

// compareIDs orders %2 before %10.
func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

func setCmd(t Target, k, v string) []string {
	switch t.Scope {
	case ScopeGlobal:
		return []string{"set-option", "-g", k, v}
	}
	return []string{"set-option", "-" + string(t.Scope), "-t", t.ID, k, v}
}

func unsetCmd(t Target, k string) []string {
	switch t.Scope {
	case ScopeGlobal:
		return []string{"set-option", "-gu", k}
	}
	return []string{"set-option", "-" + string(t.Scope) + "u", "-t", t.ID, k}
}

// Join makes one tmux argv of several commands, separated by ";" (one
// argument, which tmux reads as the separator, like \; in a shell).
func Join(cmds [][]string) []string {
	var out []string
	for i, c := range cmds {
		if i > 0 {
			out = append(out, ";")
		}
		out = append(out, c...)
	}
	return out
}
