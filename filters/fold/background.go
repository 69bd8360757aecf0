package fold

import "github.com/agwatch/ag/filters/event"

// Background sessions (Claude Code's --bg) have no terminal of their own.
// Their hooks say so on every event (where, job); a pane that shows one
// (claude attach <job>) is reported by ag-detect as a viewer.

// viewer: ag-detect's sighting (a process, or its screen) of a process
// that shows a background session. It lends the session its pane; its pid
// and tty are the viewer's, never the session's.
func viewer(e *event.Event) bool {
	return e.Where == event.WhereBackground && (e.Src == event.SrcProc || e.Src == event.SrcPane)
}

// place keeps where the session runs. A hook says it on every event: a
// background session's hook moves it out of any pane but a viewer's (an
// interactive session moved to the background with ←), an interactive
// one's back into a terminal (resumed in a pane after it was stopped).
// Other sources do not know, and change nothing.
func (s *session) place(e *event.Event) {
	st := &s.st
	switch {
	case viewer(e):
		s.keep(&st.Where, e.Where)
		s.keep(&st.Job, e.Job)
	case e.Src == event.SrcHook && e.Sub == "":
		s.str(&st.Where, e.Where)
		s.str(&st.Job, e.Job)
		if e.Where == event.WhereBackground && st.Pane != s.viewPane {
			s.str(&st.Pane, s.viewPane)
		}
	}
}

// viewed is a viewer's proc.up or proc.down: the session's pane while it
// shows it; its end is never the session's.
func (s *session) viewed(e *event.Event) {
	switch e.Kind {
	case event.ProcUp:
		s.viewPane = e.Pane
		s.assert(e)
	case event.ProcDown:
		if s.viewPane == e.Pane {
			s.viewPane = ""
		}
		if s.st.Pane == e.Pane {
			s.str(&s.st.Pane, "")
		}
	}
}
