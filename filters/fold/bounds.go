package fold

import (
	"fmt"
	"slices"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/glance"
)

// What other hosts may put in the fold is bounded. Their states come from
// a broker anyone may publish to (or from an ssh link): a publisher could
// make up hosts and sessions without end, date a state in year 9999, or
// send states faster than anything after the fold can show them. So:
//
//   - a time further ahead of the fold's clock than FutureSlack is taken
//     as the time the event arrived (SetNow), here and on this host;
//   - each other host may keep HostSessions sessions, and all of them
//     together RemoteSessions; a new session past a bound takes the place
//     of the least urgent, oldest one of the host that keeps the most;
//   - at most MaxHosts other hosts are kept;
//   - each host's state changes pass at HostRate a second after a burst of
//     HostBurst, and all hosts' together at remoteRate times that; the
//     rest wait (the newest state of each session only) and pass as the
//     rates allow, one host after another, the hosts that keep to their
//     own rate first: a host's last word is never lost, fifty hosts
//     flooding at once cost what five do, and a host that keeps to its
//     rate waits at most for the next release (Release);
//   - a host heard of nothing for QuietHost has its sessions marked stale,
//     and dropped KeepGone later, as after a host.down.
//
// Each bound, when it first bites on a host, is said once (Config.Warn).

// Defaults of the bounds.
const (
	DefaultFutureSlack    = time.Minute
	DefaultHostSessions   = 256
	DefaultRemoteSessions = 4096
	DefaultMaxHosts       = 256
	// remoteText bounds each text of another host's state, and remoteExtra
	// the members this version does not know that it keeps of one.
	remoteText  = 4096
	remoteExtra = 4096
	remoteRate  = 5
)

// hostInfo is what the fold keeps about another host.
type hostInfo struct {
	sessions int              // its sessions in the fold…
	keys     map[key]struct{} // …which are these (an eviction looks at one host's)

	tokens float64   // the rate limit's bucket
	filled time.Time // when tokens were last topped up
	parked map[key]*event.Event
	order  []key // parked, oldest first

	heard time.Time // when anything of it last arrived
	quiet bool      // its sessions were marked stale for its silence

	limited, ahead bool // said once each
}

// SetNow sets the clock of the events applied next: when they arrived.
// Without it (zero) nothing is clamped, rate-limited or found quiet.
func (f *Folder) SetNow(now time.Time) { f.now = now }

// Parked reports whether states of other hosts wait for their rate
// limit: Release then passes them as it allows.
func (f *Folder) Parked() bool { return f.parked > 0 }

func (f *Folder) warn(format string, a ...any) {
	if f.cfg.Warn != nil {
		f.cfg.Warn(fmt.Sprintf(format, a...))
	}
}

// hostFor is host's record, made on its first word; nil when MaxHosts
// other hosts are kept already.
func (f *Folder) hostFor(host string) *hostInfo {
	if h := f.hosts[host]; h != nil {
		return h
	}
	if len(f.hosts) >= f.cfg.MaxHosts {
		if !f.hostsFull {
			f.hostsFull = true
			f.warn("more than %d other hosts: the states of %s and any host after it are left out", f.cfg.MaxHosts, host)
		}
		return nil
	}
	h := &hostInfo{tokens: float64(f.cfg.HostBurst), filled: f.now}
	f.hosts[host] = h
	return h
}

// future dates an event dated further ahead than FutureSlack (of when it
// arrived) as the newest event before it that was not: one such date (a
// clock stepped back, a state dated 9999) must not make every later event
// look older and be ignored. Not the time it arrived: events that came in
// the same read, written before that moment, would then look older.
func (f *Folder) future(e *event.Event, host string) {
	if f.now.IsZero() {
		return
	}
	if !e.T.After(f.now.Add(f.cfg.FutureSlack)) {
		if e.T.After(f.latest) {
			f.latest = e.T.Time
		}
		return
	}
	ahead := e.T.Sub(f.now).Round(time.Second)
	said := &f.aheadSaid
	if h := f.hosts[host]; host != "" && h != nil {
		said = &h.ahead
	}
	if !*said {
		*said = true
		who := "this host"
		if host != "" {
			who = host
		}
		f.warn("%s: an event dated %s, %v ahead of this clock: dated as the events before it (said once)", who, e.T.String(), ahead)
	}
	t := f.latest
	if t.IsZero() {
		t = f.now.Add(-f.cfg.FutureSlack)
	}
	e.T = event.At(t)
	if e.Since != nil && e.Since.After(t) {
		e.Since = &e.T
	}
}

// bound cuts what another host's state may hold: texts and the members
// this version does not know.
func bound(e *event.Event) {
	for _, p := range [...]*string{&e.Text, &e.Prompt, &e.Cwd, &e.Tool, &e.Reason, &e.Model, &e.Branch,
		&e.Transcript, &e.Argv0, &e.Run, &e.ToolID, &e.Sub, &e.Stale, &e.Where, &e.Job, &e.Mode, &e.Why} {
		*p = event.Clamp(*p, remoteText)
	}
	if len(e.Limits) > 8 {
		e.Limits = e.Limits[:8]
	}
	if len(e.Options) > 16 {
		e.Options = e.Options[:16]
	}
	for i := range e.Options {
		e.Options[i] = event.Clamp(e.Options[i], 256)
	}
	if len(e.Extra) > remoteExtra {
		e.Extra = nil
	}
}

// admit reports whether a state of host may pass now: its host's rate
// and all hosts' together allow it. Otherwise it is parked, replacing any
// older parked state of its session.
func (f *Folder) admit(h *hostInfo, host string, k key, e *event.Event) bool {
	if f.cfg.HostRate <= 0 || f.now.IsZero() {
		return true
	}
	f.refill(h)
	f.refillAll()
	if h.tokens >= float64(f.cfg.HostBurst) {
		h.limited = false // a full bucket: the host kept to its rate since
	}
	if len(h.order) == 0 && h.tokens >= 1 && f.allTokens >= 1 {
		h.tokens--
		f.allTokens--
		return true
	}
	if h.parked == nil {
		h.parked = map[key]*event.Event{}
	}
	c := *e
	c.Extra = slices.Clone(e.Extra)
	if _, ok := h.parked[k]; !ok {
		if len(h.order) >= f.cfg.HostSessions {
			return false // as many as it may keep sessions wait: this one goes
		}
		h.order = append(h.order, k)
		f.parked++
	}
	h.parked[k] = &c
	if h.tokens < 1 && !h.limited {
		h.limited = true
		f.warn("%s: more than %d state changes at once, or %.0f a second: the rest pass at that rate (said once)",
			host, f.cfg.HostBurst, f.cfg.HostRate)
	}
	return false
}

func (f *Folder) refill(h *hostInfo) {
	if d := f.now.Sub(h.filled); d > 0 {
		h.tokens = min(float64(f.cfg.HostBurst), h.tokens+d.Seconds()*f.cfg.HostRate)
		h.filled = f.now
	}
}

// refillAll tops up the bucket all hosts share: remoteRate times HostRate
// a second, two seconds' worth at most.
func (f *Folder) refillAll() {
	rate := f.cfg.HostRate * remoteRate
	switch d := f.now.Sub(f.allFilled); {
	case f.allFilled.IsZero():
		f.allTokens = 2 * rate
	case d > 0:
		f.allTokens = min(2*rate, f.allTokens+d.Seconds()*rate)
	default:
		return
	}
	f.allFilled = f.now
}

// Release passes the parked states the rate limits allow at now, a state
// a host at a time: first the hosts that keep to their own rate (what they
// have parked fits their own bucket: their states waited only for all
// hosts' share, a flood elsewhere), then the others, in turn. Each group's
// turn goes on where the last release stopped, so a host waits for one
// state of each other host in its group at most, never for the group to
// come round to it one release at a time.
func (f *Folder) Release(now time.Time) []event.Event {
	f.out = f.out[:0]
	if f.parked == 0 {
		return f.out
	}
	f.now = now
	f.refillAll()
	var good, flooding []string
	for name, h := range f.hosts {
		if len(h.order) > 0 {
			f.refill(h)
			if h.limited || float64(len(h.order)) > h.tokens {
				flooding = append(flooding, name)
			} else {
				good = append(good, name)
			}
		}
	}
	slices.Sort(good)
	slices.Sort(flooding)
	for g, hosts := range [2][]string{good, flooding} {
		for idle := 0; idle < len(hosts) && f.allTokens >= 1; {
			name := hosts[f.turn[g]%len(hosts)]
			f.turn[g]++
			h := f.hosts[name]
			if len(h.order) == 0 || h.tokens < 1 {
				idle++
				continue
			}
			idle = 0
			k := h.order[0]
			e := h.parked[k]
			h.order = h.order[1:]
			delete(h.parked, k)
			f.parked--
			h.tokens--
			f.allTokens--
			f.take(name, h, k, e)
			if len(h.order) == 0 {
				h.order, h.parked = nil, nil
			}
		}
	}
	return f.out
}

// Drain passes every parked state at once: the input ended, and nothing
// comes after them to outrun.
func (f *Folder) Drain() []event.Event {
	f.out = f.out[:0]
	names := make([]string, 0, len(f.hosts))
	for name := range f.hosts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		h := f.hosts[name]
		for _, k := range h.order {
			f.take(name, h, k, h.parked[k])
		}
		f.parked -= len(h.order)
		h.order, h.parked = nil, nil
	}
	return f.out
}

// room makes room for a new session of host: false when it cannot have
// one (every session it might displace waits for the user).
func (f *Folder) room(host string, h *hostInfo) bool {
	full := h.sessions >= f.cfg.HostSessions
	if !full && f.remoteN < f.cfg.RemoteSessions {
		return true
	}
	victim := host
	if !full {
		// All hosts together are at the bound: the host keeping the
		// most gives way.
		most := 0
		for name, o := range f.hosts {
			if o.sessions > most || o.sessions == most && name < victim {
				victim, most = name, o.sessions
			}
		}
	}
	if !f.capped[host] {
		f.capped[host] = true
		if full {
			f.warn("%s: more than %d sessions: its least urgent, oldest ones give way (said once)", host, f.cfg.HostSessions)
		} else {
			f.warn("%s: the other hosts keep %d sessions: the least urgent, oldest of %s give way (said once)", host, f.cfg.RemoteSessions, victim)
		}
	}
	var worst *session
	for k := range f.hosts[victim].keys {
		if s := f.sessions[k]; s != nil && (worst == nil || evictBefore(s, worst)) {
			worst = s
		}
	}
	if worst == nil {
		return false
	}
	f.drop(worst.key)
	return true
}

// evictBefore: a gone session gives way before an idle one, then done,
// failed, working, waiting; the oldest first.
func evictBefore(a, b *session) bool {
	if ra, rb := evictRank(a.st.Status), evictRank(b.st.Status); ra != rb {
		return ra < rb
	}
	if !a.st.T.Equal(b.st.T.Time) {
		return a.st.T.Before(b.st.T.Time)
	}
	return a.keyStr < b.keyStr
}

func evictRank(status string) int {
	if status == event.StatusGone {
		return -1
	}
	return glance.Rank(status)
}

// put keeps a new session s under k, counting another host's.
func (f *Folder) put(k key, s *session) {
	if k.host != "" && f.sessions[k] == nil {
		if h := f.hosts[k.host]; h != nil {
			h.sessions++
			if h.keys == nil {
				h.keys = map[key]struct{}{}
			}
			h.keys[k] = struct{}{}
		}
		f.remoteN++
	}
	f.sessions[k] = s
}

// forget uncounts a session of another host that is dropped.
func (f *Folder) forget(k key) {
	if k.host == "" {
		return
	}
	f.remoteN--
	if h := f.hosts[k.host]; h != nil {
		h.sessions--
		delete(h.keys, k)
	}
}

// quiet marks stale the sessions of hosts heard of nothing for QuietHost,
// and forgets hosts with nothing left.
func (f *Folder) quiet(now time.Time) {
	for name, h := range f.hosts {
		switch {
		case h.sessions == 0 && len(h.order) == 0 && (f.cfg.QuietHost <= 0 || now.Sub(h.heard) >= f.cfg.QuietHost):
			delete(f.hosts, name)
			delete(f.capped, name)
			f.hostsFull = false
		case f.cfg.QuietHost > 0 && !h.quiet && !h.heard.IsZero() && now.Sub(h.heard) >= f.cfg.QuietHost:
			h.quiet = true
			d := now.Sub(h.heard).Round(time.Second)
			f.hostDown(name, &event.Event{Reason: fmt.Sprintf("not heard from for %v", d)})
		}
	}
}

// behind takes back what the session holds dated further ahead of now
// than slack (the machine's clock was stepped back while the fold ran):
// the times an older event is measured against come back to now, so the
// next event is news again.
func (s *session) behind(now time.Time, slack time.Duration) {
	limit := now.Add(slack)
	for _, t := range [...]*time.Time{&s.assertT, &s.last, &s.waitT, &s.since, &s.pidSeen, &s.answeredT, &s.paneIdleT, &s.paneShownT, &s.paneBusyT} {
		if t.After(limit) {
			*t = now
		}
	}
	if s.st.T.After(limit) {
		s.st.T = event.At(now)
		s.rev++
	}
}
