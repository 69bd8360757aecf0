// Package notify is ag-notify's policy, kept pure: which state events
// become notifications, when, and when they are taken back. The clock is
// the caller's (every call takes now), and so is the question "is the user
// looking at that pane" (Config.Looking), so every timing rule is a table
// test.
//
// The rules, from ccmux's notifier and its users' complaints:
//
//   - entering waiting notifies at once; a different wait replacing an
//     unanswered one replaces the notification (one per session);
//   - done or failed after working notifies after Debounce (1 s), and not
//     at all if the session moved on meanwhile (a Stop followed at once by
//     more work is not "finished");
//   - a state whose time is more than MaxAge (10 s) old when it arrives
//     never notifies: that is history being replayed;
//   - after a notification, the same session and kind stay quiet for
//     Cooldown (60 s), unless the user has looked at the session since;
//   - nothing is shown while the user is looking at the pane;
//   - a shown notification is retracted when its state edge is over (the
//     wait resolved, a new turn began, the session went) or when the user
//     looks at the pane;
//   - a state older than the last one acted on for its session (by gen,
//     and by time: see mark.old), or the same gen and token again,
//     changes nothing: a
//     replay or a duplicate never delivers twice nor retracts a newer
//     notification;
//   - sessions are keyed by host; when the link to a host is down (a stale
//     state, host.down, or the end of input for another host's sessions)
//     its shown notifications are replaced by one saying so, without
//     buttons, and given back when the host confirms the same state;
//   - another host's notifications are bounded (HostBurst, HostRate): a
//     wait past them is told when they allow.
package notify

import (
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

// Defaults for Config.
const (
	DefaultDebounce = time.Second
	DefaultCooldown = 60 * time.Second
	DefaultMaxAge   = 10 * time.Second
)

// Config is the policy's knobs and questions.
type Config struct {
	Debounce time.Duration // done/failed wait this long for the state to hold
	Cooldown time.Duration // per session and kind
	MaxAge   time.Duration // older states are history: never notified
	Agents   Agents
	// Looking reports whether the user is looking at pane now (tmux pane
	// active in an attached session, terminal frontmost). Nil: never.
	// Only this host's panes are asked about.
	Looking func(pane string) bool
	// Wanted says whether a state may notify at all (ag-notify --where);
	// an unwanted one is still observed, so what it ends is taken back
	// and a later wanted edge knows what came before. Nil: every state.
	Wanted func(e *event.Event) bool
	// Self is the machine ag-notify runs on: another host's sessions are
	// named with their host, and their panes are not looked at here.
	Self hostname.Self
}

// Op is what to do with a note.
type Op int

const (
	Deliver Op = iota + 1 // show it (replacing this session's previous one)
	Retract               // take it back
)

func (o Op) String() string {
	switch o {
	case Deliver:
		return "deliver"
	case Retract:
		return "retract"
	}
	return "?"
}

// Decision is one thing for the backends to do.
type Decision struct {
	Op     Op
	Note   *Note
	Reason string // retract: "resolved", "seen", "gone"
}

// Policy holds what it has seen of each session.
type Policy struct {
	cfg      Config
	sessions map[string]*session
	gone     map[string]mark // sessions that went: a replay does not revive them
	hosts    bool            // a state of another host was seen: name hosts
	budgets  map[string]*budget
	limited  []string // hosts whose budget ran out, not yet said

	// Kept as sessions change, so that Next and Shown, asked after every
	// state, cost nothing: walking every session for them made a flood
	// of 13,000 forged sessions quadratic (250 µs a state, a genuine
	// wait 3.4 s late behind them in TestMQTTFlood).
	shownHere int       // sessions whose shown note is of a pane here
	next      time.Time // the earliest due of a pending note …
	nextOK    bool      // … when there is one
	nextStale bool      // a pending note at next went: walk the sessions
}

type session struct {
	host    string
	status  string
	edge    string
	shown   *Note // delivered and not retracted
	pending *Note // done/failed waiting out the debounce
	due     time.Time
	last    map[string]time.Time // kind -> last delivery
	acted   mark                 // the newest state taken in
	// hidden is the note a stale one replaced: given back when the host
	// confirms the state it was made for.
	hidden *Note
}

// mark is where a session's states had got to: time, gen, token, and
// whether the state was stale.
type mark struct {
	t     time.Time
	gen   int64
	token string
	stale bool
	set   bool
}

func markOf(e *event.Event) mark { return mark{e.T.Time, e.Gen, e.Token, e.Stale != "", true} }

// old reports whether e is not news after m: the same gen and token again
// with the same standing, or older both by gen and by time (a higher gen
// is news whatever the clocks say, and a later time at a lower gen is a
// fold that started over: one state dated years ahead must not silence
// its session for good), or at the same gen, older by time.
func (m mark) old(e *event.Event) bool {
	switch {
	case !m.set:
		return false
	case e.Token != "" && e.Token == m.token && e.Gen == m.gen && (e.Stale != "") == m.stale:
		return true
	case e.Gen == m.gen:
		return e.T.Before(m.t)
	}
	return e.Gen < m.gen && !e.T.After(m.t)
}

// maxGone bounds the memory of sessions that went.
const maxGone = 4096

// New returns a policy; zero durations in cfg stay zero (no debounce, no
// cooldown, no age limit), so callers wanting defaults say so.
func New(cfg Config) *Policy {
	return &Policy{cfg: cfg, sessions: map[string]*session{}, gone: map[string]mark{}, budgets: map[string]*budget{}}
}

// Observe takes one state event (or a host.down) arriving at now and
// returns what to do. Events of other kinds are ignored.
func (p *Policy) Observe(now time.Time, e *event.Event) []Decision {
	e.Host = p.cfg.Self.Canon(e.Host)
	if e.Kind == event.HostDown {
		if p.cfg.Self.Is(e.Host) {
			return nil
		}
		return p.Unreachable(e.Host)
	}
	if e.Kind != event.State {
		return nil
	}
	k := key(e)
	s := p.sessions[k]
	if s == nil {
		if p.gone[k].old(e) {
			return nil // a replay of a session that went
		}
		s = &session{host: e.Host, last: map[string]time.Time{}}
		p.sessions[k] = s
		p.prune()
	} else if s.acted.old(e) {
		return nil
	}
	s.acted = markOf(e)
	if !p.cfg.Self.Is(e.Host) {
		p.hosts = true
	}
	if e.Stale != "" {
		return p.hide(s)
	}
	if back := s.hidden; back != nil {
		s.hidden = nil
		if s.shown != nil && s.shown.Kind == KindStale && back.edge == edge(e) {
			// The host is back and the session is where it was: the
			// notification it had, buttons and all, comes back.
			n := p.build(back.Kind, e)
			p.show(s, n)
			return []Decision{{Op: Deliver, Note: n}}
		}
	}
	prev, prevEdge := s.status, s.edge
	s.status, s.edge = e.Status, edge(e)
	moved := s.edge != prevEdge

	if s.pending != nil && s.pending.edge != s.edge {
		p.unpend(s) // the turn went on: not finished after all
	}
	fresh := p.cfg.MaxAge <= 0 || now.Sub(e.T.Time) <= p.cfg.MaxAge

	var out []Decision
	delivered := false
	switch {
	case !fresh || !moved || p.cfg.Wanted != nil && !p.cfg.Wanted(e):
	case e.Status == event.StatusWaiting:
		if d, ok := p.fire(now, s, p.build(KindWaiting, e)); ok {
			out, delivered = append(out, d), true
		}
	case (e.Status == event.StatusDone || e.Status == event.StatusFailed) && prev == event.StatusWorking:
		kind := KindDone
		if e.Status == event.StatusFailed {
			kind = KindFailed
		}
		n := p.build(kind, e)
		if p.cfg.Debounce <= 0 {
			if d, ok := p.fire(now, s, n); ok {
				out, delivered = append(out, d), true
			}
		} else {
			p.pend(s, n, now.Add(p.cfg.Debounce))
		}
	}
	if !delivered && s.shown != nil && s.shown.edge != s.edge {
		reason := "resolved"
		if e.Status == event.StatusGone {
			reason = "gone"
		}
		out = append(out, Decision{Op: Retract, Note: s.shown, Reason: reason})
		p.show(s, nil)
	}
	if e.Status == event.StatusGone && s.pending == nil && s.shown == nil {
		delete(p.sessions, k) // nothing left to remember it for
		if len(p.gone) >= maxGone {
			clear(p.gone)
		}
		p.gone[k] = s.acted
	}
	return out
}

// build makes the note for e, naming its host when states of more than
// one host are about.
func (p *Policy) build(kind string, e *event.Event) *Note {
	n := p.cfg.Agents.Build(kind, e)
	n.Remote = !p.cfg.Self.Is(e.Host)
	if p.hosts && e.Host != "" {
		n.Title = p.cfg.Agents.title(n.Name+"@"+e.Host, e)
	}
	return n
}

// hide replaces a shown notification of s by one saying its host is out
// of reach: its buttons would type into nothing, or into a pane that has
// moved on.
func (p *Policy) hide(s *session) []Decision {
	p.unpend(s)
	if s.shown == nil || s.shown.Kind == KindStale {
		return nil
	}
	n := s.shown.Stale()
	s.hidden = s.shown
	p.show(s, n)
	return []Decision{{Op: Deliver, Note: n}}
}

// Unreachable marks every session of host stale: the link to it is down
// (host.down, or the end of the input that carried it).
func (p *Policy) Unreachable(host string) []Decision {
	var out []Decision
	for _, s := range p.sessions {
		if s.host != host || s.acted.stale {
			continue
		}
		s.acted.stale = true
		out = append(out, p.hide(s)...)
	}
	return out
}

// Hosts lists the other hosts whose sessions are held, each once, in no
// order: whose link ends with the input.
func (p *Policy) Hosts() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range p.sessions {
		if !p.cfg.Self.Is(s.host) && !seen[s.host] {
			seen[s.host] = true
			out = append(out, s.host)
		}
	}
	return out
}

// fire delivers n unless the cooldown or the user's gaze says not to.
// Replacing a shown note of the same kind is exempt from the cooldown: the
// old one's buttons quote a token that no longer holds, and a replacement
// adds no banner.
func (p *Policy) fire(now time.Time, s *session, n *Note) (Decision, bool) {
	replacing := s.shown != nil && (s.shown.Kind == n.Kind || s.shown.Kind == KindStale)
	if last, ok := s.last[n.Kind]; ok && !replacing && p.cfg.Cooldown > 0 && now.Sub(last) < p.cfg.Cooldown {
		if n.Kind == KindWaiting {
			// A wait is never dropped: it is told when the cooldown ends,
			// if the session still waits on the same thing by then.
			p.pend(s, n, last.Add(p.cfg.Cooldown))
		}
		return Decision{}, false
	}
	if p.looking(n) {
		return Decision{}, false
	}
	if !replacing {
		if ok, next := p.allow(now, s.host); !ok {
			// Past its host's budget: a wait is told when the budget
			// allows, if the session still waits on it by then.
			if n.Kind == KindWaiting {
				p.pend(s, n, next)
			}
			return Decision{}, false
		}
	}
	s.last[n.Kind] = now
	p.show(s, n)
	return Decision{Op: Deliver, Note: n}, true
}

// Due fires the debounced notifications whose time has come.
func (p *Policy) Due(now time.Time) []Decision {
	var out []Decision
	for _, s := range p.sessions {
		if s.pending == nil || now.Before(s.due) {
			continue
		}
		n := s.pending
		p.unpend(s)
		if d, ok := p.fire(now, s, n); ok {
			out = append(out, d)
		}
	}
	return out
}

// Answered says the user answered the session from a notification (a
// button or a reply): they are engaged with it, so its cooldowns end and
// the next thing it asks for is told at once.
func (p *Policy) Answered(key string) {
	if s := p.sessions[key]; s != nil {
		clear(s.last)
	}
}

// Next is when Due next has something to do; ok is false if never.
func (p *Policy) Next() (t time.Time, ok bool) {
	if p.nextStale {
		p.next, p.nextOK, p.nextStale = time.Time{}, false, false
		for _, s := range p.sessions {
			if s.pending != nil && (!p.nextOK || s.due.Before(p.next)) {
				p.next, p.nextOK = s.due, true
			}
		}
	}
	return p.next, p.nextOK
}

// pend makes n s's pending note, due then.
func (p *Policy) pend(s *session, n *Note, due time.Time) {
	p.unpend(s)
	s.pending, s.due = n, due
	if !p.nextStale && (!p.nextOK || due.Before(p.next)) {
		p.next, p.nextOK = due, true
	}
}

// unpend drops s's pending note; Next looks again if it was the earliest.
func (p *Policy) unpend(s *session) {
	if s.pending == nil {
		return
	}
	s.pending = nil
	if p.nextOK && !s.due.After(p.next) {
		p.nextStale = true
	}
}

// show makes n (nil: none) s's shown note, keeping Shown's count.
func (p *Policy) show(s *session, n *Note) {
	if shownHere(s.shown) {
		p.shownHere--
	}
	s.shown = n
	if shownHere(n) {
		p.shownHere++
	}
}

// shownHere: a note of a pane on this host, which the sweep may retract.
func shownHere(n *Note) bool { return n != nil && n.Pane != "" && !n.Remote }

// looking reports whether the user looks at n's pane, on this host.
func (p *Policy) looking(n *Note) bool {
	return n.Pane != "" && !n.Remote && p.cfg.Looking != nil && p.cfg.Looking(n.Pane)
}

// Shown reports whether any delivered notification is still up, which is
// when Sweep is worth calling.
func (p *Policy) Shown() bool { return p.shownHere > 0 }

// Sweep retracts the notifications whose pane the user is now looking at,
// and forgets their cooldowns: the user has seen the session.
func (p *Policy) Sweep(now time.Time) []Decision {
	if p.cfg.Looking == nil {
		return nil
	}
	var out []Decision
	for _, s := range p.sessions {
		if s.shown == nil || !p.looking(s.shown) {
			continue
		}
		out = append(out, Decision{Op: Retract, Note: s.shown, Reason: "seen"})
		p.show(s, nil)
		clear(s.last)
	}
	return out
}
