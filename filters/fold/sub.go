package fold

import (
	"cmp"

	"github.com/agwatch/ag/filters/event"
)

// Sub-agents: their events count in flight and may show an idle parent at
// work; their prompts are the session's.

// sub folds an event of a sub-agent: it counts in flight, may show an
// idle or finished parent at work, and never ends the parent's wait or turn.
func (f *Folder) sub(s *session, e *event.Event) {
	if f.subWaits(s, e) {
		return
	}
	switch e.Kind {
	case event.Meter:
		f.meter(s, e)
		return
	case event.ToolEnd, event.TurnEnd, event.TurnFail, event.Interrupt:
		if e.Kind == event.ToolEnd && e.ToolID != "" {
			return // a tool inside the sub-agent finished, not the agent
		}
		if _, ok := s.subs[e.Sub]; ok {
			delete(s.subs, e.Sub)
			if s.st.Pending > 0 && s.st.Status == event.StatusWorking {
				s.pending(s.st.Pending - 1)
				s.str(&s.st.Text, backgroundText(s.st.Pending))
			}
			// The last sub-agent that alone showed the parent working is
			// done: back to where the parent was.
			if len(s.subs) == 0 && s.preSub != "" && s.st.Status == event.StatusWorking && s.st.Pending == 0 {
				prev := s.preSub
				s.set(e.T.Time, prev, "", "", "", "")
				s.assert(e)
			}
		}
		return
	case event.SessionEnd, event.ProcDown, event.WaitEnd:
		return
	}
	if s.subs == nil {
		s.subs = map[string]struct{}{}
	}
	if len(s.subs) < 1024 {
		s.subs[e.Sub] = struct{}{}
	}
	switch s.st.Status {
	case event.StatusIdle, event.StatusDone:
		if e.Kind != event.Wait && e.Kind != event.SessionStart && s.fresh(e, f.cfg.SameMoment) {
			prev := s.st.Status
			s.set(e.T.Time, event.StatusWorking, "", "", "", backgroundText(len(s.subs)))
			s.assert(e)
			s.preSub = prev
		}
	}
}

// subWaits handles a sub-agent's prompt, which blocks the session as much
// as the main thread's would (Claude Code 2.1.197 shows "Bash command ·
// from the general-purpose agent" with the usual choices, and its hooks
// carry the sub-agent's agent_id), and its answer: the sub-agent's next
// tool call, the end of the call it asked about, or its own end, newer
// than the prompt, or a hook's word that it was answered. It reports
// whether e was taken.
func (f *Folder) subWaits(s *session, e *event.Event) bool {
	st := &s.st
	switch e.Kind {
	case event.ToolStart:
		if e.ToolID != "" {
			if s.subTool == nil {
				s.subTool = map[string]string{}
			}
			if len(s.subTool) < 1024 || s.subTool[e.Sub] != "" {
				s.subTool[e.Sub] = e.ToolID
			}
		}
	case event.Wait:
		if st.Status == event.StatusGone || !s.fresh(e, f.cfg.SameMoment) {
			return true
		}
		if st.Status != event.StatusWaiting || st.Sub == "" {
			p := &s.subPrev
			p.status, p.attn, p.tool, p.toolID, p.text, p.pending = st.Status, st.Attention, st.Tool, st.ToolID, st.Text, st.Pending
			if st.Status == event.StatusWaiting && st.Tool == "" {
				// Claude's Notification for this very prompt, come first
				// (it names no agent): the session was at work.
				p.status, p.attn, p.tool, p.toolID, p.text = event.StatusWorking, "", "", "", ""
			}
		}
		id := e.ToolID
		if id == "" {
			id = s.subTool[e.Sub]
		}
		attn := cmp.Or(e.Attention, event.AttnPermission)
		s.set(e.T.Time, event.StatusWaiting, attn, e.Tool, id, e.Text)
		s.newWait(e.T.Time, e.Src)
		s.str(&st.Sub, e.Sub)
		s.assert(e)
		return true
	}
	if st.Sub != e.Sub || st.Status != event.StatusWaiting || e.T.Before(s.waitT) {
		return false
	}
	answered := false
	switch e.Kind {
	case event.ToolStart:
		answered = e.Src == event.SrcHook && e.ToolID != st.ToolID
	case event.ToolEnd:
		answered = e.ToolID == "" || st.ToolID == "" || e.ToolID == st.ToolID
	case event.TurnEnd, event.TurnFail, event.Interrupt:
		answered = true
	case event.WaitEnd:
		// A hook that says the prompt was answered (OpenCode's
		// permission.replied for a sub-agent's session).
		answered = e.Src == event.SrcHook
	}
	if answered {
		// Back to what the session showed before the prompt: working (with
		// the background agents still out), or the main thread's own wait.
		prev := &s.subPrev
		s.set(e.T.Time, cmp.Or(prev.status, event.StatusWorking), prev.attn, prev.tool, prev.toolID, prev.text)
		if prev.status == event.StatusWorking {
			s.pending(prev.pending)
		}
		s.assert(e)
	}
	return false
}
