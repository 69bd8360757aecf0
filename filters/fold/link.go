package fold

import (
	"cmp"
	"slices"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// Which session an event is about: by session id, else by pane or pid;
// a session that never learnt its process adopts a sighting of one; a
// process that moves on to another session leaves the one it ran.

// lookup finds or makes the session e is about. Events without a session
// (pane and process sightings) go to the live session in the same pane or
// with the same pid, else to a record keyed by pane (or pid).
func (f *Folder) lookup(host string, e *event.Event) *session {
	if e.Session != "" {
		k := sessionKey(host, e.Agent, e.Session)
		s := f.sessions[k]
		if s == nil {
			if host != "" && !f.room(host, f.hosts[host]) {
				return nil
			}
			s = newSession(k, e, false)
			f.put(k, s)
		}
		f.absorb(s, e)
		return s
	}
	var best *session
	for _, s := range f.sessions {
		if s.key.host != host || s.st.Session == "" || s.st.Status == event.StatusGone ||
			(e.Agent != "" && s.st.Agent != "" && e.Agent != s.st.Agent) {
			continue
		}
		match := e.Pane != "" && s.st.Pane == e.Pane && (e.PID == 0 || s.st.PID == 0 || s.st.PID == e.PID || viewer(e))
		if e.Pane == "" && e.PID != 0 && s.st.PID == e.PID {
			match = true
		}
		if match && (best == nil || s.last.After(best.last)) {
			best = s
		}
	}
	if best != nil {
		return best
	}
	if s := f.paneless(host, e); s != nil {
		f.retire(s, e, paneKey(host, e.Pane))
		return s
	}
	var k key
	switch {
	case e.Pane != "":
		k = paneKey(host, e.Pane)
	case e.PID != 0 && e.Kind == event.ProcUp:
		k = pidKey(host, e.PID)
	default:
		return nil // nothing to key it by
	}
	s := f.sessions[k]
	if s == nil {
		if host != "" && !f.room(host, f.hosts[host]) {
			return nil
		}
		s = newSession(k, e, true)
		f.put(k, s)
		f.loose++
	}
	return s
}

// absorb retires the pane-only or pid-only record a real session now
// accounts for, taking over what it knew of the process.
func (f *Folder) absorb(s *session, e *event.Event) {
	if f.loose == 0 {
		return
	}
	if e.Pane != "" {
		f.retire(s, e, paneKey(s.key.host, e.Pane))
	}
	if e.PID != 0 {
		f.retire(s, e, pidKey(s.key.host, e.PID))
	}
	if e.Pane == "" && e.PID == 0 && s.st.Pane == "" && s.st.PID == 0 {
		if k, ok := f.sighting(s, e); ok {
			f.retire(s, e, k)
		}
	}
}

// A session that never learnt its process (no pane, no pid: Codex 0.17x
// runs hooks in a shared server with no terminal, and rollouts name no
// process) is tied to a pane-only sighting of the same agent in the same
// directory whose process started before the session's latest event, when
// exactly one such pair exists. Two Codex panes in one project stay
// unlinked rather than guessed.
func adoptable(s, o *session, t time.Time) bool {
	st, ot := &s.st, &o.st
	return s.key.host == o.key.host && st.Session != "" && st.Pane == "" && st.PID == 0 && st.Status != event.StatusGone &&
		o.key.pane != "" && ot.Session == "" && ot.PID != 0 && ot.Status != event.StatusGone &&
		st.Agent != "" && st.Agent == ot.Agent && st.Cwd != "" && st.Cwd == ot.Cwd &&
		!t.Before(o.pidSeen)
}

// sighting is the one pane-only record the pane-less session s (about to
// take e) may adopt.
func (f *Folder) sighting(s *session, e *event.Event) (key, bool) {
	probe := *s
	probe.st.Agent, probe.st.Cwd = cmp.Or(s.st.Agent, e.Agent), cmp.Or(s.st.Cwd, e.Cwd)
	t := e.T.Time
	if s.last.After(t) {
		t = s.last
	}
	var found key
	n := 0
	for k, o := range f.sessions {
		if adoptable(&probe, o, t) {
			found, n = k, n+1
		}
	}
	return found, n == 1 && f.unrivalled(&probe, f.sessions[found], t)
}

// paneless is the one pane-less session a sighting e (a pane and a pid,
// no session) belongs to.
func (f *Folder) paneless(host string, e *event.Event) *session {
	if e.Pane == "" || e.PID == 0 || e.Agent == "" || e.Cwd == "" {
		return nil
	}
	o := &session{key: paneKey(host, e.Pane), pidSeen: e.T.Time}
	if prev := f.sessions[o.key]; prev != nil {
		o.pidSeen = prev.pidSeen
	}
	o.st.Agent, o.st.Cwd, o.st.PID = e.Agent, e.Cwd, e.PID
	var found *session
	n := 0
	for _, s := range f.sessions {
		if adoptable(s, o, s.last) {
			found, n = s, n+1
		}
	}
	if n != 1 || !f.unrivalled(found, o, found.last) {
		return nil
	}
	return found
}

// unrivalled: no other pane-less session could claim sighting o, and no
// other sighting session s.
func (f *Folder) unrivalled(s, o *session, t time.Time) bool {
	for _, x := range f.sessions {
		if x.key == s.key || x.key == o.key {
			continue
		}
		if adoptable(x, o, x.last) || adoptable(s, x, t) {
			return false
		}
	}
	return true
}

func (f *Folder) retire(s *session, e *event.Event, k key) {
	o := f.sessions[k]
	if o == nil || (o.st.Agent != "" && e.Agent != "" && o.st.Agent != e.Agent) {
		return
	}
	if s.st.PID == 0 && o.st.PID != 0 {
		s.st.PID, s.pidSeen = o.st.PID, o.pidSeen
	}
	s.keep(&s.st.TTY, o.st.TTY)
	s.keep(&s.st.Pane, o.st.Pane)
	s.keep(&s.st.Cwd, o.st.Cwd)
	o.cause = e.ID
	o.set(e.T.Time, event.StatusGone, "", "", "", "now session "+e.Session)
	o.st.Reason = "superseded"
	f.out = append(f.out, o.emit(e.T.Time))
	f.drop(k)
}

func (f *Folder) oneSession(agent string) bool {
	return f.cfg.OneSession != nil && f.cfg.OneSession(agent)
}

// inherit gives a session that just learnt its process the context window
// that process declared for an earlier session: Claude names the model (and "[1m]") only in the
// SessionStart of the process's first session, not after /clear or
// /resume.
func (f *Folder) inherit(s *session) {
	var from *session
	for _, o := range f.sessions {
		if o != s && o.ctxFloor > 0 && o.st.PID == s.st.PID && o.st.Agent == s.st.Agent && o.key.host == s.key.host &&
			(from == nil || o.last.After(from.last)) {
			from = o
		}
	}
	if from == nil {
		return
	}
	s.ctxFloor, s.ctxModel = from.ctxFloor, from.ctxModel
	if s.hasCtx && s.ctx.Size < s.ctxFloor {
		f.setContext(s, s.ctx, s.st.Model)
	}
}

// evict ends every other live session e's process was running: an agent
// process runs one session at a time, and one that speaks for a new
// session has left the old one (Claude's --fork-session starts with a
// SessionStart naming the session it forks, then goes on as a new one;
// no SessionEnd says so). Sessions heard of after e are left alone.
func (f *Folder) evict(s *session, e *event.Event) {
	var gone []key
	for k, o := range f.sessions {
		if o == s || o.st.PID != e.PID || o.st.Session == "" || o.st.Status == event.StatusGone ||
			o.st.Agent != e.Agent || o.key.host != s.key.host || o.last.After(e.T.Time) {
			continue
		}
		gone = append(gone, k)
	}
	slices.SortFunc(gone, key.less)
	for _, k := range gone {
		o := f.sessions[k]
		o.cause = e.ID
		o.set(e.T.Time, event.StatusGone, "", "", "", "now session "+e.Session)
		o.st.Reason = "superseded"
		f.out = append(f.out, o.emit(e.T.Time))
		f.changes++
	}
}
