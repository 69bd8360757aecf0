package fold

import (
	"slices"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// Sessions of other hosts. Their states come folded already (that host's
// ag-fold, over ssh or a broker): each is taken as it is when it is newer
// than the one held, kept under its host, passed on, and never checked
// against this machine's processes. A host whose link went down
// (host.down) has its sessions marked stale until it speaks again, and
// they are dropped when it stays silent for KeepGone.

// order compares two states of one session as their host's ag-fold made
// them: its gen counts every change of status, attention or tool, so a
// higher gen is newer whatever the clocks say; at the same gen (a change
// of meters) the later time is. A lower gen with a later time is newer
// too: that host's fold started over without its state file. So no one
// field — a gen, or a time dated years ahead — holds a session: the next
// state that is newer by the other passes.
func order(a, b *event.Event) int {
	switch {
	case a.Gen == b.Gen:
		return a.T.Compare(b.T.Time)
	case a.Gen > b.Gen || a.T.After(b.T.Time):
		return 1
	}
	return -1
}

// remote takes in a state of another host's session, within the bounds
// on what other hosts may put in the fold (bounds.go).
func (f *Folder) remote(host string, e *event.Event) {
	if e.Session == "" && e.Pane == "" || !known(e.Status) {
		return
	}
	h := f.hostFor(host)
	if h == nil {
		return
	}
	h.heard, h.quiet = f.now, false
	bound(e)
	f.future(e, host)
	k := sessionKey(host, e.Agent, e.Session)
	if e.Session == "" {
		k = paneKey(host, e.Pane)
	}
	if old := f.sessions[k]; old != nil && !newer(e, &old.st) {
		return
	}
	if p := h.parked[k]; p != nil {
		if newer(e, p) {
			c := *e
			c.Extra = slices.Clone(e.Extra)
			h.parked[k] = &c
		}
		return
	}
	if f.admit(h, host, k, e) {
		f.take(host, h, k, e)
	}
}

// newer reports whether e may replace the state held: an older state is a
// replay or a duplicate; the same one again confirms a stale session (its
// host is back) and nothing else.
func newer(e, old *event.Event) bool {
	c := order(e, old)
	return c > 0 || c == 0 && old.Stale != "" && e.Stale == ""
}

// take keeps e as the state of k.
func (f *Folder) take(host string, h *hostInfo, k key, e *event.Event) {
	old := f.sessions[k]
	if old != nil && !newer(e, &old.st) {
		return
	}
	if old == nil && !f.room(host, h) {
		return
	}
	if old == nil && e.Session == "" {
		f.loose++
	}
	s := &session{key: k, keyStr: k.String()}
	s.restore(e)
	s.st.Src, s.st.Extra = e.Src, slices.Clone(e.Extra)
	f.put(k, s)
	f.changes++
	f.out = append(f.out, s.view())
}

// hostDown marks every session of host stale: what it last said may no
// longer hold.
func (f *Folder) hostDown(host string, e *event.Event) {
	why := "lost touch with " + host
	if e.Reason != "" {
		why += ": " + e.Reason
	}
	for _, k := range f.keys() {
		s := f.sessions[k]
		if k.host != host || s.st.Stale != "" || s.st.Status == event.StatusGone {
			continue
		}
		s.st.Stale, s.staleAt = why, time.Time{}
		s.rev++ // the state file's line of it is out of date
		f.changes++
		f.out = append(f.out, s.view())
	}
}

// expire drops a stale session KeepGone after the first tick that saw it
// stale (a host.down's own time may be far older: an MQTT will is written
// when its client connects).
func (f *Folder) expire(k key, s *session, now time.Time) {
	switch {
	case s.staleAt.IsZero():
		s.staleAt, s.rev = now, s.rev+1
	case now.Sub(s.staleAt) >= f.cfg.KeepGone:
		f.drop(k)
	}
}

// known reports a status this version folds to; a state with another is
// not passed on.
func known(status string) bool {
	switch status {
	case event.StatusIdle, event.StatusWorking, event.StatusWaiting, event.StatusDone, event.StatusFailed, event.StatusGone:
		return true
	}
	return false
}
