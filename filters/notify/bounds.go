package notify

import (
	"slices"
	"time"
)

// What another host may cost the user. Its states come through a broker
// anyone may publish to: a publisher making up hosts and waits could
// bury the desktop in notifications and grow the policy's memory without
// end. So each other host may have HostBurst notifications shown at once
// and HostRate a minute after that (a wait past it is told when the
// budget allows, if it still waits: never dropped); this host's sessions
// are not limited. One a second: a host with many agents at work (each
// permission and each finished turn a notification) stays under it; 10 a
// minute held a busy host's waits back by up to 6 s (make bench's
// TestMQTTNotifyLatency: 23 waits in 15 s from one host, median 5.7 s). And at most MaxSessions sessions are remembered: past
// it, those with nothing shown or due are forgotten, the longest quiet
// first.
const (
	HostBurst   = 20
	HostRate    = 60 // a minute
	MaxSessions = 8192
)

// budget is one host's notification allowance.
type budget struct {
	tokens float64
	filled time.Time
	said   bool // its limit was said (Limited)
}

// allow takes one notification from host's budget at now, or says when
// the next one will be allowed.
func (p *Policy) allow(now time.Time, host string) (bool, time.Time) {
	if p.cfg.Self.Is(host) {
		return true, time.Time{}
	}
	b := p.budgets[host]
	if b == nil {
		b = &budget{tokens: HostBurst, filled: now}
		p.budgets[host] = b
	}
	if d := now.Sub(b.filled); d > 0 {
		b.tokens = min(HostBurst, b.tokens+d.Minutes()*HostRate)
		b.filled = now
	}
	if b.tokens >= 1 {
		b.tokens--
		if b.tokens >= HostBurst-1 {
			b.said = false // it kept to its budget since: a next time is said again
		}
		return true, time.Time{}
	}
	if !b.said {
		b.said = true
		p.limited = append(p.limited, host)
	}
	wait := time.Duration((1 - b.tokens) / HostRate * float64(time.Minute))
	return false, now.Add(wait)
}

// Limited returns the hosts whose budget ran out since the last call, each
// once per episode, for the caller to say so.
func (p *Policy) Limited() []string {
	l := p.limited
	p.limited = nil
	return l
}

// prune forgets sessions with nothing shown or due, the longest quiet
// first, when more than MaxSessions are held.
func (p *Policy) prune() {
	if len(p.sessions) <= MaxSessions {
		return
	}
	type idle struct {
		k string
		t time.Time
	}
	var quiet []idle
	for k, s := range p.sessions {
		if s.shown == nil && s.pending == nil && s.hidden == nil {
			quiet = append(quiet, idle{k, s.acted.t})
		}
	}
	slices.SortFunc(quiet, func(a, b idle) int { return a.t.Compare(b.t) })
	for _, q := range quiet[:min(len(quiet), len(p.sessions)-MaxSessions*3/4)] {
		delete(p.sessions, q.k)
	}
}
