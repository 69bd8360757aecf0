package fold

import (
	"slices"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// An agent whose one process hosts several live sessions (OpenCode's
// server: sessions the user switches between, each possibly at work) shows
// them all in the one pane it runs in. A key typed there answers whichever
// dialog the pane shows, which may belong to another session than the one
// a notification was about, and no token can tell. So while more than one
// session of such a process waits, each of those waits is Ambiguous: its
// notification offers no buttons and ag-keys refuses to type into it.
// The mark is part of the state's gen, so a button offered before a
// second wait began quotes a token that no longer holds.

// shared recomputes the ambiguity of the waits of s's process after s
// changed at at, emitting the states of the process's other sessions whose
// mark changed (s's own is emitted by the caller).
func (f *Folder) shared(s *session, at time.Time) {
	if f.cfg.ManySessions == nil || s.st.PID == 0 || !f.cfg.ManySessions(s.st.Agent) {
		return
	}
	var group []*session
	waiting := 0
	for _, o := range f.sessions {
		if o.st.PID != s.st.PID || o.st.Agent != s.st.Agent || o.st.Host != s.st.Host ||
			o.st.Session == "" || o.st.Status == event.StatusGone {
			continue
		}
		group = append(group, o)
		if o.st.Status == event.StatusWaiting {
			waiting++
		}
	}
	slices.SortFunc(group, func(a, b *session) int { return a.key.less(b.key) })
	for _, o := range group {
		amb := o.st.Status == event.StatusWaiting && waiting > 1
		if o.st.Ambiguous == amb {
			continue
		}
		o.st.Ambiguous = amb
		o.st.Gen++
		o.dirty = true
		if o != s {
			o.cause = s.cause
			f.flush(o, at)
		}
	}
}
