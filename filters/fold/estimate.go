package fold

import (
	"time"

	"github.com/agwatch/ag/filters/event"
)

// The approval estimate, for agents whose hooks never say that a prompt is
// up (Cursor's preToolUse fires before every call, and nothing when it
// asks): a call the hooks started and have not ended after Config.Estimate
// is taken as a probable approval wait. Calls are kept per tool id, so a
// call that runs beside it and ends does not end it. The wait stands
// marked (reason "estimated", no buttons) until the pane shows the prompt
// (confirmed) or shows something else (dismissed: the call runs, working
// again, never estimated again), or the call, the turn or the session
// ends.

// maxCalls bounds the calls kept in flight per session.
const maxCalls = 64

// call is a tool call the hooks started and did not end yet.
type call struct {
	t          time.Time
	tool, text string
	dismissed  bool // the pane showed it is no wait: not estimated again
}

func (f *Folder) estimate(agent string) time.Duration {
	if f.cfg.Estimate == nil {
		return 0
	}
	return f.cfg.Estimate(agent)
}

// track notes the calls in flight of a session whose agent is estimated.
func (f *Folder) track(s *session, e *event.Event) {
	if e.Sub != "" || f.estimate(s.st.Agent) <= 0 {
		return
	}
	switch e.Kind {
	case event.ToolStart:
		if e.Src != event.SrcHook || e.ToolID == "" || (len(s.calls) >= maxCalls && s.calls[e.ToolID] == nil) {
			return
		}
		if s.calls == nil {
			s.calls = map[string]*call{}
		}
		if c := s.calls[e.ToolID]; c == nil || e.T.Before(c.t) {
			s.calls[e.ToolID] = &call{t: e.T.Time, tool: e.Tool, text: e.Text}
		}
	case event.ToolEnd:
		delete(s.calls, e.ToolID)
	case event.TurnStart, event.TurnEnd, event.TurnFail, event.Interrupt, event.SessionEnd, event.ProcDown:
		// The run's stop (or the next prompt, an interrupt, the end) ends
		// every call it had.
		if s.fresh(e, f.cfg.SameMoment) {
			clear(s.calls)
		}
	}
}

// estimated reports a wait that is the estimate, not confirmed.
func estimated(s *session) bool {
	return s.st.Status == event.StatusWaiting && s.st.Reason == event.ReasonEstimated
}

// raiseEstimate: at now, a working session with a call in flight for the
// agent's estimate or longer (the oldest such call) is waiting for its
// approval, probably.
func (f *Folder) raiseEstimate(s *session, now time.Time) bool {
	est := f.estimate(s.st.Agent)
	if est <= 0 || len(s.calls) == 0 {
		return false
	}
	id, oldest := "", (*call)(nil)
	for k, c := range s.calls {
		if c.dismissed || now.Sub(c.t) < est {
			continue
		}
		if oldest == nil || c.t.Before(oldest.t) || c.t.Equal(oldest.t) && k < id {
			id, oldest = k, c
		}
	}
	if oldest == nil {
		return false
	}
	s.set(now, event.StatusWaiting, event.AttnPermission, oldest.tool, id, oldest.text)
	s.str(&s.st.Reason, event.ReasonEstimated)
	// The prompt, if any, came up with the call: a pane sighting since
	// then counts.
	s.newWait(oldest.t, "")
	s.cause = "tick.estimate"
	return true
}

// confirmEstimate: the pane shows the prompt the estimate guessed. The wait
// is now a known one, and a new edge (gen), so a notification shown for
// the estimate is offered again with its buttons.
func (s *session) confirmEstimate(e *event.Event) {
	st := &s.st
	s.str(&st.Reason, "")
	st.Gen++
	s.dirty = true
	s.str(&st.Text, pick(e.Text, st.Text))
	s.waitSrc = event.SrcPane
	s.assert(e)
}

// dismissEstimate: the pane (or the command seen running) shows no prompt
// for the estimated call: it runs. Working again, and that call is not
// estimated again.
func (s *session) dismissEstimate(e *event.Event) {
	st := &s.st
	if c := s.calls[st.ToolID]; c != nil {
		c.dismissed = true
	}
	s.set(e.T.Time, event.StatusWorking, "", st.Tool, st.ToolID, st.Text)
	s.assert(e)
}
