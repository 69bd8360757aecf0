package fold

import (
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
	view := viewer(e)
	if !view || e.Kind != event.ProcDown {
		s.keep(&st.Pane, e.Pane)
	}
	if !view {
		s.keep(&st.TTY, e.TTY)
	}
	s.keep(&st.Host, e.Host)
	s.keep(&st.Cwd, e.Cwd)
	s.keep(&st.Branch, e.Branch)
	s.keep(&st.Transcript, e.Transcript)
	if e.PID != 0 && e.PID != st.PID && e.Kind != event.ProcDown && !view {
		st.PID, s.pidSeen, s.dirty = e.PID, e.T.Time, true
	}
	if e.Sub == "" {
		s.keep(&st.Model, e.Model)
		s.keep(&st.Mode, e.Mode)
	}
	s.place(e)
}

func (f *Folder) fold(s *session, e *event.Event) {
	gone := s.st.Status == event.StatusGone
	f.rules(s, e)
	if gone && s.st.Status != event.StatusGone && e.PID == 0 && e.Pane == "" {
		s.unplace()
	}
}

// unplace forgets where a session ran: it is back from gone on news that
// names no process (its transcript, resumed in another pane), and the
// process it had is the one that went, or moved on to another session.
// Kept, its pid would be found dead at the next check and the session gone
// again, and its pane would claim the session for a pane that runs
// something else; the next event that names a process (a hook, ag-detect)
// says where it runs now.
func (s *session) unplace() {
	st := &s.st
	if st.PID != 0 || st.Pane != "" || st.TTY != "" {
		st.PID, st.Pane, st.TTY, s.pidSeen, s.dirty = 0, "", "", time.Time{}, true
	}
}

// rules moves the session's state on e.
func (f *Folder) rules(s *session, e *event.Event) {
	s.cause = e.ID
	s.rev++ // what the fold knows of it changes, seen or not
	was := s.st.PID
	f.meta(s, e)
	if was == 0 && s.st.PID != 0 && s.ctxFloor == 0 && s.st.Session != "" && f.oneSession(s.st.Agent) {
		f.inherit(s)
	}
	if s.st.Status == "" {
		s.set(e.T.Time, event.StatusIdle, "", "", "", "")
	}
	if e.Src == event.SrcHook {
		s.hooked = true
	}
	f.track(s, e)
	if viewer(e) && (e.Kind == event.ProcUp || e.Kind == event.ProcDown) {
		s.viewed(e)
		return
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
			s.answer = ""
			s.pending(0) // the new run supersedes one left waiting for background agents
			if e.Run != "" && s.st.Run != "" && e.Run != s.st.Run {
				s.supersede(s.st.Run)
			}
			s.keep(&s.st.Run, e.Run)
			s.keep(&s.st.Prompt, e.Text)
			s.assert(e)
			s.turnT = e.T.Time
		} else if f.namesPrompt(s, e) {
			s.keep(&s.st.Run, e.Run)
			s.str(&s.st.Prompt, e.Text)
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
			s.callOptions, s.callTool = e.Options, e.Tool
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
			// The hook says the user answered: whatever the prompt shows
			// in its last frames (Kilo's reason typed into its reject
			// dialog) is no new prompt; a new call's comes after its
			// tool.start.
			s.ended(e.T.Time)
			s.answeredText = ""
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
		if s.endsBadly(e, f.cfg.SameMoment) {
			return
		}
		if e.Src == event.SrcLog && s.hooked && f.cfg.HookEnds != nil && f.cfg.HookEnds(s.st.Agent) {
			s.answer = e.Text // the hook says when the turn ends; this may be what it said
			return
		}
		if e.Pending > 0 && s.st.Status == event.StatusWaiting && s.st.Sub != "" && s.fresh(e, f.cfg.SameMoment) && sameRun(s, e) {
			// The turn ended while a background sub-agent's prompt is up
			// (Claude Code 2.1.332 runs sub-agents in the background): it
			// still waits; the answer goes back to the background wait.
			p := &s.subPrev
			p.status, p.attn, p.tool, p.toolID, p.text, p.pending = event.StatusWorking, "", "", "", backgroundText(e.Pending), e.Pending
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
				if text == "" {
					text = s.answer // the transcript's last answer, for a hook that names none
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
		// An agent's hook that says it is back at its prompt (Qwen's
		// idle_prompt) follows every turn: it ends one no Stop ended (a
		// denied call, the user's Escape) and is no news to one that did.
		if e.Src == event.SrcHook && e.Reason == event.ReasonIdle &&
			(s.st.Status != event.StatusWorking && s.st.Status != event.StatusWaiting || s.st.Pending > 0) {
			return
		}
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
		// Idle only because no source says more: the state says so.
		if e.Reason == event.ReasonUnread && s.st.Status == event.StatusIdle {
			s.str(&s.st.Reason, event.ReasonUnread)
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
			s.ended(e.T.Time)
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

// namesPrompt: a transcript's start of the turn a hook started at the same
// moment, read late — even after the turn ended — says what its prompt was.
func (f *Folder) namesPrompt(s *session, e *event.Event) bool {
	if e.Src != event.SrcLog || e.Text == "" || s.turnT.IsZero() || s.st.Status == event.StatusGone {
		return false
	}
	d := e.T.Sub(s.turnT)
	return d < f.cfg.SameMoment && d > -f.cfg.SameMoment
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
	wasWaiting := st.Status == event.StatusWaiting
	s.assert(e)
	// Claude's Notification for a prompt a PermissionRequest already
	// reported (or for an AskUserQuestion the pane already named) says
	// only "permission": it adds nothing. Nor does a notification naming
	// nothing for the kind of wait already up (Copilot's "Information
	// requested" for the question its ask_user call opened).
	// After auto mode's hold (ReasonUnchecked) the action's own prompt is
	// a new one, though its Notification says as little.
	held := st.Status == event.StatusWaiting && st.Reason == event.ReasonUnchecked
	if st.Status == event.StatusWaiting && !held && e.Reason == event.ReasonUnchecked && e.Tool == "" {
		// The hold's own hook, after the pane showed it: the same wait,
		// now known to be the hold.
		s.str(&st.Reason, event.ReasonUnchecked)
		return
	}
	if st.Status == event.StatusWaiting && e.Tool == "" && !held &&
		(attn == event.AttnPermission || attn == st.Attention && e.Text == "") {
		return
	}
	// Claude's PermissionRequest names no tool_use_id: the wait is for the
	// call of that tool just started, so an end of another call (a
	// transcript's, written late) does not end it.
	tool, id, text := e.Tool, e.ToolID, e.Text
	if e.Tool != "" && e.Tool == st.Tool && st.Status == event.StatusWorking {
		if id == "" {
			id = st.ToolID
		}
		// Gemini's Notification for a question or a plan says neither:
		// the call just started (BeforeTool) did.
		if text == "" {
			text = st.Text
		}
	}
	// A permission wait that names no tool while a call is in flight (or
	// held) is that call's: Claude Code's auto mode asks about a call with
	// a Notification alone ("Claude needs your permission"), no
	// PermissionRequest, when its safety check flagged or could not judge
	// it; Factory Droid fires PreToolUse before its dialog, then "Factory
	// CLI needs permission to execute 1 tool(s)".
	if tool == "" && attn == event.AttnPermission && st.Tool != "" && (st.Status == event.StatusWorking || held) {
		tool, id, text = st.Tool, st.ToolID, st.Text
	}
	s.set(e.T.Time, event.StatusWaiting, attn, tool, id, text)
	s.waitOptions(e)
	if held {
		st.Gen++ // a prompt of its own: the hold's answers no longer apply
		s.dirty = true
	}
	if e.Reason == event.ReasonUnchecked {
		s.str(&st.Reason, event.ReasonUnchecked)
	}
	s.str(&st.Sub, "")    // the main thread's own prompt
	shown := s.paneShownT // a prompt on screen before its hook is still there
	s.newWait(e.T.Time, e.Src)
	if wasWaiting {
		s.paneShownT = shown
	}
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
		s.paneIdleT, s.paneBusyT = time.Time{}, time.Time{} // the prompt is still there
		s.paneShownT = e.T.Time
		if estimated(s) {
			s.confirmEstimate(e)
		}
		switch {
		case attn != st.Attention && (st.Attention == event.AttnPermission || s.waitSrc == event.SrcPane):
			s.set(e.T.Time, event.StatusWaiting, attn, st.Tool, st.ToolID, pick(e.Text, st.Text))
		case attn == st.Attention && s.waitSrc == event.SrcPane && st.Text == "" && e.Text != "" && (e.Tool == "" || e.Tool == st.Tool):
			// A dialog drawn before what it asks about (nanocoder's
			// command preview comes a frame later): the same wait, now
			// with its text.
			s.set(s.waitT, event.StatusWaiting, attn, st.Tool, st.ToolID, e.Text)
		case attn == event.AttnQuestion && st.Attention == attn && s.waitSrc == event.SrcPane && e.Text != "" && st.Text != "" &&
			e.Text != st.Text && (e.Tool == "" || e.Tool == st.Tool):
			// A form's next question (Codex's request_user_input asks
			// them one at a time): a wait of its own, its own options and
			// token, so an answer meant for the last one is refused.
			s.set(e.T.Time, event.StatusWaiting, attn, st.Tool, st.ToolID, e.Text)
			s.options(nil, false)
			st.Gen++
			s.dirty = true
			s.waitT = e.T.Time
		}
		s.waitOptions(e)
	case event.StatusWorking, event.StatusIdle, event.StatusDone:
		if e.T.Before(s.assertT) {
			return // the screen is older than what we know
		}
		// Claude's PostToolUse comes before the picker is redrawn away:
		// the same tool's prompt just after its wait ended is that
		// prompt's last frame, not a new one — unless it asks about
		// something else (the next call's prompt, up at once). Only a
		// permission's text names what it asks about; a plan's or a
		// question's on the pane is the screen's wording, not the call's.
		// A call of that tool started since (its hook came first) has a
		// prompt of its own: Codex asks request_user_input again within
		// the second.
		// A prompt that names no tool (OpenCode's and Kilo's question,
		// after their hook's wait.end) is the answered one's when it asks
		// the same kind of thing.
		same := e.Tool != "" && e.Tool == s.answered || e.Tool == "" && s.answeredAttn != "" && attn == s.answeredAttn
		if same && e.T.Sub(s.answeredT) < f.cfg.SameMoment &&
			(e.Text == "" || s.answeredText == "" || e.Text == s.answeredText || attn != event.AttnPermission) &&
			(st.ToolID == "" || e.Tool == "" || st.Tool != e.Tool) {
			return
		}
		tool, id := e.Tool, e.ToolID
		if tool == "" && attn == event.AttnPermission && st.Status == event.StatusWorking {
			// A prompt that names no tool (auto mode's hold) is about the
			// call in flight.
			tool, id = st.Tool, st.ToolID
		}
		s.set(e.T.Time, event.StatusWaiting, attn, tool, id, e.Text)
		s.waitOptions(e)
		s.newWait(e.T.Time, event.SrcPane)
		s.paneShownT = e.T.Time
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
	if estimated(s) {
		s.dismissEstimate(e) // whatever shows there, it is not the prompt guessed
		return
	}
	if e.Reason == event.ReasonBusy {
		if e.Src == event.SrcPane && s.waitSrc != event.SrcPane && s.paneShownT.IsZero() &&
			e.T.Sub(s.waitT) < f.cfg.DrawGrace {
			// The agent at work on a screen that has not yet drawn the
			// hook's prompt: the screen is behind the hook, nothing was
			// answered. A Tick past DrawGrace ends the wait if the prompt
			// never showed (answered before the pane was read).
			s.paneBusyT = e.T.Time
			return
		}
		s.answeredOnPane(e.T.Time)
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

// answeredOnPane: the agent at work where its prompt was: the wait was
// answered (a permission granted, a question or a plan answered).
func (s *session) answeredOnPane(at time.Time) {
	st := &s.st
	text := "" // a question or a plan is no description of the work
	if st.Attention == event.AttnPermission {
		text = st.Text // the command now running
	}
	s.ended(at)
	s.set(at, event.StatusWorking, "", st.Tool, st.ToolID, text)
}

func pick(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
