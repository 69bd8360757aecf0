package fold

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// The rules: how each kind of event moves a session's state. fresh (in
// session.go) decides whether an observation is new enough to change the
// status at all.

// meta keeps what the event says about the session's surroundings.
func (f *Folder) meta(s *session, e *event.Event) {
	st := &s.st
	if e.T.After(s.last) {
		s.last = e.T.Time
	}
	s.keep(&st.Agent, e.Agent)
	s.keep(&st.Pane, e.Pane)
	s.keep(&st.TTY, e.TTY)
	s.keep(&st.Host, e.Host)
	s.keep(&st.Cwd, e.Cwd)
	s.keep(&st.Branch, e.Branch)
	s.keep(&st.Transcript, e.Transcript)
	if e.PID != 0 && e.PID != st.PID && e.Kind != event.ProcDown {
		st.PID, s.pidSeen, s.dirty = e.PID, e.T.Time, true
	}
	if e.Sub == "" {
		s.keep(&st.Model, e.Model)
	}
}

func (f *Folder) fold(s *session, e *event.Event) {
	s.cause = e.ID
	was := s.st.PID
	f.meta(s, e)
	if was == 0 && s.st.PID != 0 && s.ctxFloor == 0 && s.st.Session != "" && f.oneSession(s.st.Agent) {
		f.inherit(s)
	}
	if s.st.Status == "" {
		s.set(e.T.Time, event.StatusIdle, "", "", "", "")
	}
	if e.Sub != "" {
		f.sub(s, e)
		return
	}
	switch e.Kind {
	case event.SessionStart:
		if declares(e) {
			f.declare(s, e)
		}
		if s.st.Status == event.StatusGone && s.fresh(e, f.cfg.SameMoment) {
			s.set(e.T.Time, event.StatusIdle, "", "", "", "")
			s.assert(e)
		}
	case event.SessionEnd, event.ProcDown:
		// Codex's shared server says SessionEnd (naming no process) for a
		// thread when a TUI resumes it, moments after that TUI starts: it
		// does not end the session the new process runs. (Later, it does:
		// /new in that TUI ends the thread while the process lives on.)
		if e.Kind == event.SessionEnd && e.PID == 0 && e.Pane == "" && !s.namedAt.IsZero() &&
			e.T.Sub(s.namedAt) < resumeEnd {
			return
		}
		if e.Kind == event.ProcDown {
			s.namedAt = time.Time{}
		}
		if s.fresh(e, f.cfg.SameMoment) && s.st.Status != event.StatusGone {
			reason := e.Reason
			if reason == "" && e.Kind == event.ProcDown {
				reason = "process exited"
			}
			s.set(e.T.Time, event.StatusGone, "", "", "", reason)
			s.str(&s.st.Reason, reason)
			s.assert(e)
		}
	case event.TurnStart:
		if s.fresh(e, f.cfg.SameMoment) {
			s.set(e.T.Time, event.StatusWorking, "", "", "", "")
			s.pending(0) // the new run supersedes one left waiting for background agents
			if e.Run != "" && s.st.Run != "" && e.Run != s.st.Run {
				s.supersede(s.st.Run)
			}
			s.keep(&s.st.Run, e.Run)
			s.keep(&s.st.Prompt, e.Text)
			s.assert(e)
		}
	case event.ToolStart:
		// A transcript's tool call is no evidence that a wait was answered:
		// Codex writes it while its prompt is still up, and Claude stamps a
		// gated call with the time the model asked for it.
		if s.st.Status == event.StatusWaiting && e.Src == event.SrcLog {
			return
		}
		if s.fresh(e, f.cfg.SameMoment) && !otherTool(s, e) {
			s.set(e.T.Time, event.StatusWorking, "", e.Tool, e.ToolID, e.Text)
			s.assert(e)
		}
	case event.ToolEnd:
		f.toolEnd(s, e)
	case event.Wait:
		if e.Src == event.SrcPane {
			f.paneWait(s, e)
		} else {
			f.wait(s, e)
		}
	case event.WaitEnd:
		if e.Src == event.SrcPane {
			f.paneIdle(s, e)
		} else if e.Src == event.SrcProc && e.Reason == event.ReasonBusy {
			// The command the prompt asked about runs (ag-fold found it
			// under the agent's process): the prompt was answered. Only
			// for the wait it was found for.
			if s.st.Status == event.StatusWaiting && s.st.Text == e.Text && s.st.Tool == e.Tool {
				f.paneIdle(s, e)
			}
		} else if s.st.Status == event.StatusWaiting && s.fresh(e, f.cfg.SameMoment) {
			s.set(e.T.Time, event.StatusWorking, "", "", "", "")
			s.assert(e)
		}
	case event.TurnEnd:
		// A transcript cannot see background agents: its end of the run a
		// hook ended with some pending (Claude writes it just after the
		// Stop hook) is no news. The resumed run, or the last of those
		// agents, ends the wait.
		if e.Src == event.SrcLog && e.Pending == 0 && s.st.Pending > 0 && (e.Run == "" || e.Run == s.st.Run) {
			return
		}
		if s.fresh(e, f.cfg.SameMoment) && sameRun(s, e) {
			if e.Pending > 0 {
				s.set(e.T.Time, event.StatusWorking, "", "", "", backgroundText(e.Pending))
				s.pending(e.Pending)
			} else {
				text := e.Text
				if text == "" && s.st.Status == event.StatusDone {
					text = s.st.Text // the transcript's end after the hook's Stop
				}
				s.set(e.T.Time, event.StatusDone, "", "", "", text)
			}
			s.assert(e)
		}
	case event.TurnFail:
		if s.fresh(e, f.cfg.SameMoment) && sameRun(s, e) {
			// reason is the kind of error (rate_limit, …), text what the
			// agent said about it; either stands in for the other.
			reason, text := e.Reason, e.Text
			if reason == "" {
				reason = text
			}
			if text == "" {
				text = reason
			}
			s.set(e.T.Time, event.StatusFailed, "", "", "", text)
			s.str(&s.st.Reason, reason)
			s.assert(e)
		}
	case event.Interrupt:
		if s.fresh(e, f.cfg.SameMoment) && sameRun(s, e) {
			s.set(e.T.Time, event.StatusIdle, "", "", "", "")
			s.assert(e)
		}
	case event.Meter:
		f.meter(s, e)
	case event.ProcUp:
		s.namedAt = time.Time{}
		if e.Session != "" && e.PID != 0 {
			s.namedAt = e.T.Time // the process's start
		}
		// A process runs the session again (resumed). Another process
		// than the one that died counts whatever its start time: ag-detect
		// first sees Codex's node launcher, which goes down once the
		// native child it started (earlier than that down) is found.
		if s.st.Status == event.StatusGone && (s.fresh(e, f.cfg.SameMoment) || e.PID != 0 && e.PID != was) {
			s.set(e.T.Time, event.StatusIdle, "", "", "", "")
			s.assert(e)
		}
	}
}

// resumeEnd bounds how long after a process that resumed a session by name
// started the server's SessionEnd for that session is taken to be the one
// resuming causes (seen 1.5 s after, on a loaded machine).
const resumeEnd = 30 * time.Second

// sameRun: an end that names a run a newer turn.start superseded is about
// that old run. A run not seen before is new (Claude resumes after
// background agents under a new prompt_id with no prompt hook): the end is
// about it, and it becomes the current run.
func sameRun(s *session, e *event.Event) bool {
	if e.Run == "" || e.Run == s.st.Run {
		return true
	}
	if slices.Contains(s.oldRuns, e.Run) {
		return false
	}
	if s.st.Run != "" {
		s.supersede(s.st.Run)
	}
	s.str(&s.st.Run, e.Run)
	return true
}

func backgroundText(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "waiting for 1 background agent"
	}
	return "waiting for " + strconv.Itoa(n) + " background agents"
}

// otherTool: while waiting for a tool call whose id is known, an event
// naming another call is about a parallel call and does not end the wait.
func otherTool(s *session, e *event.Event) bool {
	return s.st.Status == event.StatusWaiting && s.st.ToolID != "" && e.ToolID != "" && s.st.ToolID != e.ToolID
}

// toolEnd ends a wait when it is newer than the wait: a hook's by order, a
// transcript's with slack, since no hook reports that a Codex approval was
// resolved and the output line is the only evidence.
func (f *Folder) toolEnd(s *session, e *event.Event) {
	st := &s.st
	switch st.Status {
	case event.StatusWaiting:
		if otherTool(s, e) {
			return // a parallel call, not the one waiting for approval
		}
		ok := s.fresh(e, f.cfg.SameMoment)
		if e.Src == event.SrcLog {
			slack := f.cfg.NoHookSlack
			if s.waitSrc == event.SrcHook {
				slack = f.cfg.HookSlack
			}
			ok = !e.T.Before(s.waitT.Add(-slack))
		}
		if ok {
			s.answered, s.answeredT = st.Tool, e.T.Time
			next := event.StatusWorking
			if e.Reason == "denied" {
				next = event.StatusIdle // the user said no: the turn stops at the prompt
			}
			s.set(e.T.Time, next, "", "", "", "")
			s.assert(e)
		}
	case event.StatusWorking:
		if !s.fresh(e, f.cfg.SameMoment) {
			return
		}
		if e.ToolID == st.ToolID || (st.ToolID == "" || e.ToolID == "") && (e.Tool == "" || e.Tool == st.Tool) {
			// A compaction the user asked for at the prompt (/compact)
			// ends there: no turn runs on after it.
			if e.Tool == event.ToolCompact && e.Text == event.CompactManual && st.Pending == 0 {
				s.set(e.T.Time, event.StatusIdle, "", "", "", "")
				s.assert(e)
				return
			}
			s.set(e.T.Time, event.StatusWorking, "", "", "", st.Text)
			if st.Pending == 0 {
				s.str(&st.Text, "")
			}
		}
		s.assert(e)
	}
}

func (f *Folder) wait(s *session, e *event.Event) {
	if !s.fresh(e, f.cfg.SameMoment) {
		return
	}
	st := &s.st
	attn := e.Attention
	if attn == "" {
		attn = event.AttnPermission
	}
	s.assert(e)
	// Claude's Notification for a prompt a PermissionRequest already
	// reported (or for an AskUserQuestion the pane already named) says
	// only "permission": it adds nothing.
	if st.Status == event.StatusWaiting && attn == event.AttnPermission && e.Tool == "" {
		return
	}
	// Claude's PermissionRequest names no tool_use_id: the wait is for the
	// call of that tool just started, so an end of another call (a
	// transcript's, written late) does not end it.
	id := e.ToolID
	if id == "" && e.Tool != "" && e.Tool == st.Tool && st.Status == event.StatusWorking {
		id = st.ToolID
	}
	s.set(e.T.Time, event.StatusWaiting, attn, e.Tool, id, e.Text)
	s.str(&st.Sub, "") // the main thread's own prompt
	s.waitT, s.waitSrc, s.paneIdleT = e.T.Time, e.Src, time.Time{}
}

// paneWait: a prompt on screen raises a session to waiting, and names what
// a hook cannot tell apart (permission, question or plan).
func (f *Folder) paneWait(s *session, e *event.Event) {
	st := &s.st
	attn := e.Attention
	if attn == "" {
		attn = event.AttnPermission
	}
	switch st.Status {
	case event.StatusWaiting:
		if e.T.Before(s.waitT) {
			return
		}
		s.paneIdleT = time.Time{} // the prompt is still there
		if attn != st.Attention && (st.Attention == event.AttnPermission || s.waitSrc == event.SrcPane) {
			s.set(e.T.Time, event.StatusWaiting, attn, st.Tool, st.ToolID, pick(e.Text, st.Text))
		}
	case event.StatusWorking, event.StatusIdle, event.StatusDone:
		if e.T.Before(s.assertT) {
			return // the screen is older than what we know
		}
		// Claude's PostToolUse comes before the picker is redrawn away:
		// the same tool's prompt just after its wait ended is that
		// prompt's last frame, not a new one.
		if e.Tool != "" && e.Tool == s.answered && e.T.Sub(s.answeredT) < f.cfg.SameMoment {
			return
		}
		s.set(e.T.Time, event.StatusWaiting, attn, e.Tool, e.ToolID, e.Text)
		s.waitT, s.waitSrc, s.paneIdleT = e.T.Time, event.SrcPane, time.Time{}
		s.assert(e)
	}
}

// paneIdle: the prompt left the screen (or the idle composer shows while
// the session is working: see idleSeen). With the agent at work there
// (busy) it was answered — a permission granted, a question or a plan
// answered — and the wait ends at once, whoever raised it: no hook says so
// before the tool ends. With the idle composer there, a wait the pane
// raised ends at once; a hook's only once it is older than PaneGrace
// (Escape fires no hook), here or at a later Tick. Other reasons say
// nothing.
func (f *Folder) paneIdle(s *session, e *event.Event) {
	if s.st.Status == event.StatusWorking {
		// The idle composer while working: noted, and lowered to idle at a
		// Tick IdleGrace later if nothing else is heard (a turn's own end
		// comes with a hook or a transcript line within moments).
		if e.Reason == event.ReasonIdle && s.st.Pending == 0 && s.preSub == "" && !e.T.Before(s.assertT) {
			s.idleSeen = e.T.Time
		}
		return
	}
	if s.st.Status != event.StatusWaiting || e.T.Before(s.waitT) {
		return
	}
	if e.Reason == event.ReasonBusy {
		st := &s.st
		text := "" // a question or a plan is no description of the work
		if st.Attention == event.AttnPermission {
			text = st.Text // the command now running
		}
		s.answered, s.answeredT = st.Tool, e.T.Time
		s.set(e.T.Time, event.StatusWorking, "", st.Tool, st.ToolID, text)
		s.assert(e)
		return
	}
	if e.Reason != event.ReasonIdle {
		return
	}
	if s.waitSrc == event.SrcPane {
		s.set(e.T.Time, event.StatusIdle, "", "", "", "")
		s.assert(e)
		return
	}
	if e.T.Sub(s.waitT) >= f.cfg.PaneGrace {
		s.set(e.T.Time, event.StatusIdle, "", "", "", "")
		s.assert(e)
		return
	}
	s.paneIdleT = e.T.Time
}

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
// than the prompt. It reports whether e was taken.
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
		s.waitT, s.waitSrc, s.paneIdleT = e.T.Time, e.Src, time.Time{}
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

// meter adds one response's tokens to the session's total; context, cost
// and limits are current values and replace.
func (f *Folder) meter(s *session, e *event.Event) {
	if e.Tokens != nil && *e.Tokens != (event.Tokens{}) {
		s.tokens = s.tokens.Add(*e.Tokens)
		s.hasTok, s.dirty = true, true
	}
	decl := declares(e)
	if decl {
		f.declare(s, e)
	}
	// A statusLine meter both names the window and measures it; a bare
	// declaration measures nothing.
	if e.Context != nil && e.Sub == "" && (!decl || e.Src == event.SrcStatusline) && !sameContext(s, e.Context) {
		f.setContext(s, *e.Context, e.Model)
	}
	if e.CostUSD != nil && (!s.hasCost || s.cost != *e.CostUSD) {
		s.cost, s.hasCost, s.dirty = *e.CostUSD, true, true
	}
	if len(e.Limits) > 0 && !slices.EqualFunc(e.Limits, s.st.Limits, sameLimit) {
		s.st.Limits, s.dirty = slices.Clone(e.Limits), true
	}
}

// declares reports whether e names the context window in use from then on,
// rather than only measuring the context: Claude's SessionStart (which
// alone says "[1m]"), its statusLine, and a meter with a size and nothing
// used or counted (Claude's /model, read from the transcript).
func declares(e *event.Event) bool {
	if e.Context == nil || e.Context.Size <= 0 || e.Sub != "" {
		return false
	}
	return e.Kind == event.SessionStart || e.Src == event.SrcStatusline ||
		e.Kind == event.Meter && e.Tokens == nil && e.Context.Used == 0
}

// declare takes e's window as the one in use, for e's model ("" until a
// meter names it), and shows the context held so far against it.
func (f *Folder) declare(s *session, e *event.Event) {
	s.ctxFloor, s.ctxModel = e.Context.Size, e.Model
	if s.hasCtx && s.ctx.Size != s.ctxFloor && (e.Model == "" || e.Model == s.st.Model) {
		c := s.ctx
		p := LeftPct(c.Used, s.ctxFloor)
		c.Size, c.LeftPct = s.ctxFloor, &p
		f.setContext(s, c, e.Model)
	}
}

// setContext keeps c, measured on model ("" when unknown), as the
// session's context, raised to the window declared for that model (see
// ctxFloor); a window declared before a model was named becomes the next
// named model's.
func (f *Folder) setContext(s *session, c event.Context, model string) {
	if model != "" && s.ctxModel == "" && s.ctxFloor > 0 {
		s.ctxModel = model
	}
	if c.LeftPct != nil {
		p := *c.LeftPct
		c.LeftPct = &p
	}
	if c.Size < s.ctxFloor && (model == "" || model == s.ctxModel) {
		c.Size = s.ctxFloor
		p := LeftPct(c.Used, c.Size)
		c.LeftPct = &p
	}
	s.ctx, s.hasCtx, s.dirty = c, true, true
}

// LeftPct is the share of a context window left, rounded the way Claude
// Code shows it: round the used share, then subtract.
func LeftPct(used, size int64) int {
	if size <= 0 {
		return 0
	}
	u := (used*100 + size/2) / size
	return int(100 - min(100, max(0, u)))
}

func sameContext(s *session, c *event.Context) bool {
	if !s.hasCtx || s.ctx.Used != c.Used || s.ctx.Size != c.Size {
		return false
	}
	a, b := s.ctx.LeftPct, c.LeftPct
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func sameLimit(a, b event.Limit) bool {
	return a.Window == b.Window && a.UsedPct == b.UsedPct && a.Minutes == b.Minutes &&
		(a.ResetsAt == nil) == (b.ResetsAt == nil) && (a.ResetsAt == nil || a.ResetsAt.Equal(b.ResetsAt.Time))
}

func pick(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
