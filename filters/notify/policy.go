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
//     looks at the pane.
package notify

import (
	"time"

	"github.com/agwatch/ag/filters/event"
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
	Looking func(pane string) bool
	// Wanted says whether a state may notify at all (ag-notify --where);
	// an unwanted one is still observed, so what it ends is taken back
	// and a later wanted edge knows what came before. Nil: every state.
	Wanted func(e *event.Event) bool
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
}

type session struct {
	status  string
	edge    string
	shown   *Note // delivered and not retracted
	pending *Note // done/failed waiting out the debounce
	due     time.Time
	last    map[string]time.Time // kind -> last delivery
}

// New returns a policy; zero durations in cfg stay zero (no debounce, no
// cooldown, no age limit), so callers wanting defaults say so.
func New(cfg Config) *Policy {
	return &Policy{cfg: cfg, sessions: map[string]*session{}}
}

// Observe takes one state event arriving at now and returns what to do.
// Events of other kinds are ignored.
func (p *Policy) Observe(now time.Time, e *event.Event) []Decision {
	if e.Kind != event.State {
		return nil
	}
	k := key(e)
	s := p.sessions[k]
	if s == nil {
		s = &session{last: map[string]time.Time{}}
		p.sessions[k] = s
	}
	prev, prevEdge := s.status, s.edge
	s.status, s.edge = e.Status, edge(e)
	moved := s.edge != prevEdge

	if s.pending != nil && s.pending.edge != s.edge {
		s.pending = nil // the turn went on: not finished after all
	}
	fresh := p.cfg.MaxAge <= 0 || now.Sub(e.T.Time) <= p.cfg.MaxAge

	var out []Decision
	delivered := false
	switch {
	case !fresh || !moved || p.cfg.Wanted != nil && !p.cfg.Wanted(e):
	case e.Status == event.StatusWaiting:
		if d, ok := p.fire(now, s, p.cfg.Agents.Build(KindWaiting, e)); ok {
			out, delivered = append(out, d), true
		}
	case (e.Status == event.StatusDone || e.Status == event.StatusFailed) && prev == event.StatusWorking:
		kind := KindDone
		if e.Status == event.StatusFailed {
			kind = KindFailed
		}
		n := p.cfg.Agents.Build(kind, e)
		if p.cfg.Debounce <= 0 {
			if d, ok := p.fire(now, s, n); ok {
				out, delivered = append(out, d), true
			}
		} else {
			s.pending, s.due = n, now.Add(p.cfg.Debounce)
		}
	}
	if !delivered && s.shown != nil && s.shown.edge != s.edge {
		reason := "resolved"
		if e.Status == event.StatusGone {
			reason = "gone"
		}
		out = append(out, Decision{Op: Retract, Note: s.shown, Reason: reason})
		s.shown = nil
	}
	if e.Status == event.StatusGone && s.pending == nil && s.shown == nil {
		delete(p.sessions, k) // nothing left to remember it for
	}
	return out
}

// fire delivers n unless the cooldown or the user's gaze says not to.
// Replacing a shown note of the same kind is exempt from the cooldown: the
// old one's buttons quote a token that no longer holds, and a replacement
// adds no banner.
func (p *Policy) fire(now time.Time, s *session, n *Note) (Decision, bool) {
	replacing := s.shown != nil && s.shown.Kind == n.Kind
	if last, ok := s.last[n.Kind]; ok && !replacing && p.cfg.Cooldown > 0 && now.Sub(last) < p.cfg.Cooldown {
		if n.Kind == KindWaiting {
			// A wait is never dropped: it is told when the cooldown ends,
			// if the session still waits on the same thing by then.
			s.pending, s.due = n, last.Add(p.cfg.Cooldown)
		}
		return Decision{}, false
	}
	if n.Pane != "" && p.cfg.Looking != nil && p.cfg.Looking(n.Pane) {
		return Decision{}, false
	}
	s.last[n.Kind] = now
	s.shown = n
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
		s.pending = nil
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
	for _, s := range p.sessions {
		if s.pending != nil && (!ok || s.due.Before(t)) {
			t, ok = s.due, true
		}
	}
	return t, ok
}

// Shown reports whether any delivered notification is still up, which is
// when Sweep is worth calling.
func (p *Policy) Shown() bool {
	for _, s := range p.sessions {
		if s.shown != nil && s.shown.Pane != "" {
			return true
		}
	}
	return false
}

// Sweep retracts the notifications whose pane the user is now looking at,
// and forgets their cooldowns: the user has seen the session.
func (p *Policy) Sweep(now time.Time) []Decision {
	if p.cfg.Looking == nil {
		return nil
	}
	var out []Decision
	for _, s := range p.sessions {
		if s.shown == nil || s.shown.Pane == "" || !p.cfg.Looking(s.shown.Pane) {
			continue
		}
		out = append(out, Decision{Op: Retract, Note: s.shown, Reason: "seen"})
		s.shown = nil
		clear(s.last)
	}
	return out
}
