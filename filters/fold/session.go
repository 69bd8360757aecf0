package fold

import (
	"slices"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// session is what the fold knows about one session: the state readers see
// (st plus the meters kept as values) and the bookkeeping that decides
// which later observation may change it.
type session struct {
	key    key
	keyStr string      // key.String(), for the state's id
	st     event.Event // Kind state; the meters and Since live below

	tokenSince time.Time // what st.Token was made of
	tokenGen   int64

	since  time.Time
	tokens event.Tokens
	hasTok bool
	ctx    event.Context
	hasCtx bool
	// ctxFloor is a context size the session declared for the model
	// ctxModel (Claude's SessionStart and statusLine know of "[1m]"; a
	// transcript cannot tell): a smaller size a transcript gives for that
	// model is raised to it. Another model (after /model) has its own.
	ctxFloor int64
	ctxModel string
	cost     float64
	hasCost  bool

	// assertT is the source time of the newest event that asserted the
	// current status (not only edges), assertSrc/assertKind who said it:
	// an older observation may not undo it.
	assertT    time.Time
	assertSrc  string
	assertKind string

	// turnT is when the turn in progress started (its turn.start): a
	// transcript's turn.start of that same moment names the prompt a
	// hook's did not (Cline's TaskStart names none; its transcript is
	// written only once the model answers).
	turnT time.Time

	// The current wait: when and from which source it began, and the
	// newest pane sighting of the idle composer during it.
	waitT     time.Time
	waitSrc   string
	paneIdleT time.Time
	// paneShownT: when the pane last showed the prompt of the current wait;
	// paneBusyT: when it showed the agent at work during a hook's wait
	// before it had shown the prompt (Claude 2.1.332 draws its picker half
	// a second after the PermissionRequest hook): not yet an answer.
	paneShownT time.Time
	paneBusyT  time.Time
	// namedAt: when the session's process, which named it on its command
	// line (`codex resume <id>`, from ag-detect), started; zero if none.
	namedAt time.Time
	// idleSeen is when the pane showed the idle composer while the session
	// was working with nothing in flight, unless something asserted a
	// status since: a turn that ended with no hook and no transcript line
	// (Escape before Claude's first output).
	idleSeen time.Time
	// answered is the tool of the last wait a tool.end or a hook's
	// wait.end ended, its attention and text, and when: the pane may
	// still show its prompt for a moment after.
	answered     string
	answeredAttn string
	answeredText string
	answeredT    time.Time
	// hooked: a hook spoke for the session (see Config.HookEnds); answer
	// is the text of the transcript's end of the turn that was no news.
	hooked bool
	answer string
	// callOptions are the options of the question the pending call of
	// callTool asks (from its start), for the wait on it, which may name
	// none.
	callOptions []string
	callTool    string
	// screenOptions: the state's options are the pane's reading of the
	// question's picker (no event named any).
	screenOptions bool
	// preSub is the status sub-agent activity alone lifted to working.
	preSub string
	// While the session waits on a sub-agent's prompt, st.Sub names that
	// sub-agent (a reader sees whose prompt it is; a restart keeps it), and
	// subPrev is what the session showed before it: the answer returns
	// there.
	subPrev subPrevState
	// subTool is each in-flight sub-agent's newest tool call id: its
	// permission prompt names no call.
	subTool map[string]string
	// viewPane is the pane a viewer (claude attach) shows the background
	// session in, while it does.
	viewPane string

	// calls are the tool calls in flight, by id, for an agent whose
	// approvals are estimated (estimate.go).
	calls map[string]*call

	oldRuns []string            // runs a newer one superseded, newest last
	subs    map[string]struct{} // in-flight sub-agents
	pidSeen time.Time           // source time the pid was first seen
	goneAt  time.Time
	staleAt time.Time // first tick that saw it stale (another host's)
	last    time.Time // newest event time, to pick among sessions of one pane

	dirty bool   // something a reader sees changed
	cause string // id of the event that caused the change
	// A Quiet fold makes the state once it is asked for: the change not
	// yet made into a state, its time and cause.
	later      bool
	laterAt    time.Time
	laterCause string
	// rev changes whenever the fold changes anything of the session: the
	// state file's line of it (LineCache) is made again. Code that changes
	// a session outside fold and emit bumps it (TestSavedLines checks).
	rev uint64
}

type subPrevState struct {
	status, attn, tool, toolID, text string
	pending                          int
}

func newSession(k key, e *event.Event, pane bool) *session {
	s := &session{key: k, keyStr: k.String()}
	s.st = event.Event{V: event.Version, Kind: event.State, Src: event.SrcFold, Agent: e.Agent}
	if !pane {
		s.st.Session = e.Session
	}
	return s
}

func (s *session) str(p *string, v string) {
	if *p != v {
		*p = v
		s.dirty = true
	}
}

// options sets the state's options: a question's choices while it waits;
// screen says the pane read them.
func (s *session) options(o []string, screen bool) {
	s.screenOptions = screen && len(o) > 0
	if !slices.Equal(s.st.Options, o) {
		s.st.Options = o
		s.dirty = true
	}
}

// waitOptions gives a question's wait its options: the wait's own, else
// those its tool call started with, else those the pane reads in its
// picker. What the agent's events say wins over the screen: the pane's
// fill in only where no event named any, and give way to an event's.
func (s *session) waitOptions(e *event.Event) {
	st := &s.st
	fromEvents := len(st.Options) > 0 && !s.screenOptions
	switch {
	case st.Status != event.StatusWaiting || st.Attention != event.AttnQuestion:
	case len(e.Options) > 0 && e.Src != event.SrcPane:
		s.options(e.Options, false)
	case !fromEvents && len(s.callOptions) > 0 && (st.Tool == s.callTool || st.Tool == ""):
		s.options(s.callOptions, false)
	case !fromEvents && len(e.Options) > 0:
		s.options(e.Options, true)
	}
}

// keep copies a non-empty value: later events fill in what earlier ones
// did not know, and never blank it.
func (s *session) keep(p *string, v string) {
	if v != "" {
		s.str(p, v)
	}
}

// set moves the session to status with attention, tool and text. since
// moves only on a status edge; gen bumps when status, attention or tool
// change, so an action quoting an older token is refused.
// ended notes that the wait was answered at at (see answered).
func (s *session) ended(at time.Time) {
	s.answered, s.answeredAttn, s.answeredText, s.answeredT = s.st.Tool, s.st.Attention, s.st.Text, at
}

func (s *session) set(at time.Time, status, attn, tool, toolID, text string) {
	st := &s.st
	if st.Status != status {
		if at.After(s.since) {
			s.since = at
		}
		if status == event.StatusGone {
			s.goneAt = at
		}
		if status != event.StatusWaiting {
			s.newWait(time.Time{}, "")
		}
	}
	if st.Status != status || st.Attention != attn || st.Tool != tool {
		st.Gen++
		s.dirty = true
	}
	if st.Tool != tool || status != event.StatusWaiting {
		s.options(nil, false) // a question's options go with its wait
	}
	if (status != event.StatusWaiting && status != event.StatusWorking) || (tool != "" && tool != s.callTool) {
		s.callOptions, s.callTool = nil, ""
	}
	s.str(&st.Status, status)
	s.str(&st.Attention, attn)
	s.str(&st.Tool, tool)
	s.str(&st.ToolID, toolID)
	s.str(&st.Text, text)
	if status != event.StatusFailed && status != event.StatusGone {
		s.str(&st.Reason, "")
	}
	if status != event.StatusWorking {
		s.pending(0)
	}
	if status != event.StatusWaiting {
		s.str(&st.Sub, "")
		st.Ambiguous = false // the status changed: dirty already
	}
}

// supersede remembers that run is over, keeping the last few.
func (s *session) supersede(run string) {
	if len(s.oldRuns) == 8 {
		s.oldRuns = append(s.oldRuns[:0], s.oldRuns[1:]...)
	}
	s.oldRuns = append(s.oldRuns, run)
}

func (s *session) pending(n int) {
	if s.st.Pending != n {
		s.st.Pending = n
		s.dirty = true
	}
}

// assert records that e stated the current status.
func (s *session) assert(e *event.Event) {
	if !e.T.Time.Before(s.assertT) {
		s.assertT, s.assertSrc, s.assertKind = e.T.Time, e.Src, e.Kind
	}
	s.idleSeen = time.Time{} // news of the session outranks what the screen showed
	if e.Sub == "" {
		s.preSub = "" // the main thread speaks for itself again
	}
}

// fresh reports whether e may change the status: it is newer than what
// set it, or as new and from a hook (hooks outrank the transcript about
// the same moment), or a hook's report of the very thing a transcript
// line already said a moment before (the hook knows more: pending
// background agents, attention, tool).
func (s *session) fresh(e *event.Event, sameMoment time.Duration) bool {
	t := e.T.Time
	switch {
	case s.assertT.IsZero() || t.After(s.assertT):
		return true
	case t.Equal(s.assertT):
		return e.Src == event.SrcHook || s.assertSrc != event.SrcHook
	case e.Src == event.SrcHook && s.assertSrc != event.SrcHook && e.Kind == s.assertKind:
		return s.assertT.Sub(t) <= sameMoment
	case e.Src != event.SrcHook && s.assertSrc == event.SrcHook && s.assertKind == event.TurnEnd &&
		(e.Kind == event.TurnFail || e.Kind == event.Interrupt):
		return s.assertT.Sub(t) <= sameMoment // see endsBadly
	}
	return false
}

// endsBadly: the turn now said to have ended had already ended as failed
// or interrupted.
//   - The same run: that turn is over, and not well. Claude Code writes a
//     turn_duration line after an API error as after any turn, a few ms
//     after the error's line; read before the StopFailure hook, it made a
//     failed turn done for a moment (t/e2e TestClaudeLifecycle, once).
//   - A hook's end a moment after the transcript's failure, run unknown:
//     Gemini CLI fires AfterAgent after an API error and after Escape too,
//     milliseconds after its chat records the error or "Request
//     cancelled.", and the hook cannot tell: the transcript says how the
//     turn ended, whichever arrives first.
func (s *session) endsBadly(e *event.Event, sameMoment time.Duration) bool {
	if e.Kind != event.TurnEnd || (s.assertKind != event.TurnFail && s.assertKind != event.Interrupt) || e.T.Before(s.assertT) {
		return false
	}
	if e.Run != "" && e.Run == s.st.Run {
		return true
	}
	return e.Src == event.SrcHook && s.assertSrc != event.SrcHook && e.T.Sub(s.assertT) <= sameMoment
}

// emit returns the state event as a reader sees it, with its own copies
// of the meters so later folds do not change an event already handed out.
func (s *session) emit(at time.Time) event.Event {
	if at.After(s.st.T.Time) {
		s.st.T = event.At(at)
	}
	if s.tokenSince != s.since || s.tokenGen != s.st.Gen || s.st.Token == "" {
		s.st.Token = state.Token(s.since, s.st.Gen)
		s.tokenSince, s.tokenGen = s.since, s.st.Gen
	}
	cause := s.cause
	if cause == "" {
		cause = "t" + s.st.T.String()
	}
	s.st.ID = event.MakeID(event.SrcFold, s.keyStr, cause, s.st.Token)
	s.dirty, s.cause = false, ""
	s.rev++
	return s.view()
}

// putOff notes a change as emit would, to make the state later (settle).
func (s *session) putOff(at time.Time) {
	if !s.later || at.After(s.laterAt) {
		s.laterAt = at
	}
	s.later, s.laterCause = true, s.cause
	s.dirty, s.cause = false, ""
	s.rev++
}

// settle makes the state a Quiet fold put off.
func (s *session) settle() {
	if s.later {
		s.later, s.cause = false, s.laterCause
		s.emit(s.laterAt)
	}
}

// meters holds one emitted state's copies of the pointed-to values, in
// one allocation.
type meters struct {
	since  event.Time
	tokens event.Tokens
	ctx    event.Context
	left   int
	cost   float64
}

// view is the state as last emitted.
func (s *session) view() event.Event {
	e := s.st
	m := &meters{since: event.At(s.since)}
	e.Since = &m.since
	if s.hasTok {
		m.tokens = s.tokens
		e.Tokens = &m.tokens
	}
	if s.hasCtx {
		m.ctx = s.ctx
		if s.ctx.LeftPct != nil {
			m.left = *s.ctx.LeftPct
			m.ctx.LeftPct = &m.left
		}
		e.Context = &m.ctx
	}
	if s.hasCost {
		m.cost = s.cost
		e.CostUSD = &m.cost
	}
	return e
}

// restore replaces what the fold knows with a state event (a state file
// or an earlier ag-fold's output fed back in).
func (s *session) restore(e *event.Event) {
	s.st = *e
	s.st.Kind, s.st.Src, s.st.Extra, s.st.Stale = event.State, event.SrcFold, nil, ""
	s.st.Since, s.st.Tokens, s.st.Context, s.st.CostUSD = nil, nil, nil, nil
	s.since = e.T.Time
	if e.Since != nil {
		s.since = e.Since.Time
	}
	s.hasTok, s.hasCtx, s.hasCost = e.Tokens != nil, e.Context != nil, e.CostUSD != nil
	if s.hasTok {
		s.tokens = *e.Tokens
	}
	if s.hasCtx {
		s.ctx = *e.Context
		if e.Context.LeftPct != nil {
			p := *e.Context.LeftPct
			s.ctx.LeftPct = &p
		}
		// The window the state settled on (a declared "[1m]" included)
		// holds for its model after a restart, as it did before.
		s.ctxFloor, s.ctxModel = e.Context.Size, e.Model
	}
	if s.hasCost {
		s.cost = *e.CostUSD
	}
	s.assertT, s.assertSrc, s.assertKind = s.since, event.SrcFold, ""
	s.newWait(time.Time{}, "")
	if e.Status == event.StatusWaiting {
		s.waitT, s.waitSrc = s.since, event.SrcFold
	}
	if e.Status == event.StatusGone {
		s.goneAt = s.since
	}
	s.pidSeen = s.since
	s.last = e.T.Time
	s.restoreBook(e.Extra)
}

// newWait notes a wait begun at t from src (zero: no wait), with nothing
// seen on the pane since.
func (s *session) newWait(t time.Time, src string) {
	s.waitT, s.waitSrc = t, src
	s.paneIdleT, s.paneShownT, s.paneBusyT = time.Time{}, time.Time{}, time.Time{}
}
