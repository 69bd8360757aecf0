package fold

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// A state says what a reader needs; the rules need more (which source
// asserted the status and when, the wait's start, the pane's sightings,
// sub-agents in flight, superseded runs). Saved puts that in each state as
// a "fold" member, which restore reads back, so a fold restarted from its
// state file folds what comes next as the one before would have.

// book is a session's bookkeeping, as saved. Times are Unix ns (0: none).
type book struct {
	Since      int64                 `json:"since,omitempty"`
	CtxFloor   int64                 `json:"ctx_floor,omitempty"`
	CtxModel   string                `json:"ctx_model,omitempty"`
	AssertT    int64                 `json:"assert_t,omitempty"`
	AssertSrc  string                `json:"assert_src,omitempty"`
	AssertKind string                `json:"assert_kind,omitempty"`
	TurnT      int64                 `json:"turn_t,omitempty"`
	WaitT      int64                 `json:"wait_t,omitempty"`
	WaitSrc    string                `json:"wait_src,omitempty"`
	PaneIdleT  int64                 `json:"pane_idle_t,omitempty"`
	PaneShownT int64                 `json:"pane_shown_t,omitempty"`
	PaneBusyT  int64                 `json:"pane_busy_t,omitempty"`
	NamedAt    int64                 `json:"named_at,omitempty"`
	IdleSeen   int64                 `json:"idle_seen,omitempty"`
	Answered   string                `json:"answered,omitempty"`
	AnsweredAt string                `json:"answered_attention,omitempty"`
	AnsweredTx string                `json:"answered_text,omitempty"`
	AnsweredT  int64                 `json:"answered_t,omitempty"`
	PreSub     string                `json:"pre_sub,omitempty"`
	CallOpts   []string              `json:"call_options,omitempty"`
	CallTool   string                `json:"call_tool,omitempty"`
	OptsScreen bool                  `json:"options_screen,omitempty"`
	SubPrev    *subPrev              `json:"sub_prev,omitempty"`
	SubTool    map[string]string     `json:"sub_tool,omitempty"`
	OldRuns    []string              `json:"old_runs,omitempty"`
	Subs       []string              `json:"subs,omitempty"`
	PIDSeen    int64                 `json:"pid_seen,omitempty"`
	GoneAt     int64                 `json:"gone_at,omitempty"`
	Last       int64                 `json:"last,omitempty"`
	Hooked     bool                  `json:"hooked,omitempty"`
	Answer     string                `json:"answer,omitempty"`
	StaleAt    int64                 `json:"stale_at,omitempty"`
	Calls      map[string]*savedCall `json:"calls,omitempty"`
	ViewPane   string                `json:"view_pane,omitempty"`
}

// savedCall is a call in flight (estimate.go), as saved.
type savedCall struct {
	T         int64  `json:"t"`
	Tool      string `json:"tool,omitempty"`
	Text      string `json:"text,omitempty"`
	Dismissed bool   `json:"dismissed,omitempty"`
}

type subPrev struct {
	Status  string `json:"status,omitempty"`
	Attn    string `json:"attn,omitempty"`
	Tool    string `json:"tool,omitempty"`
	ToolID  string `json:"tool_id,omitempty"`
	Text    string `json:"text,omitempty"`
	Pending int    `json:"pending,omitempty"`
}

func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNS(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Saved returns every state, as States does, each carrying what the fold
// knows beyond it: what ag-fold writes to its state file.
func (f *Folder) Saved() []event.Event {
	keys := f.keys()
	out := make([]event.Event, 0, len(keys))
	for _, k := range keys {
		out = append(out, f.sessions[k].saved())
	}
	return out
}

// LineCache keeps each session's saved state encoded between calls of
// SavedLines. The zero LineCache is empty.
type LineCache struct {
	m    map[*session]cachedLine
	pass uint64
}

type cachedLine struct {
	rev, pass uint64
	line      []byte
}

// SavedLines is Saved, each state encoded as one line (event.AppendJSON):
// only the sessions that changed since the last call with c are encoded
// again, so a state file of thousands of finished sessions costs little
// to write while a few are live.
func (f *Folder) SavedLines(c *LineCache) [][]byte {
	if c.m == nil {
		c.m = map[*session]cachedLine{}
	}
	c.pass++
	keys := f.keys()
	out := make([][]byte, 0, len(keys))
	for _, k := range keys {
		s := f.sessions[k]
		s.settle()
		cl, ok := c.m[s]
		if !ok || cl.rev != s.rev {
			e := s.saved()
			cl = cachedLine{rev: s.rev, line: event.AppendJSON(nil, &e)}
		}
		cl.pass = c.pass
		c.m[s] = cl
		out = append(out, cl.line)
	}
	for s, cl := range c.m {
		if cl.pass != c.pass {
			delete(c.m, s) // a session dropped or replaced
		}
	}
	return out
}

// saved is the session's state with its bookkeeping.
func (s *session) saved() event.Event {
	s.settle()
	e := s.view()
	b := book{Since: ns(s.since), CtxFloor: s.ctxFloor, CtxModel: s.ctxModel,
		AssertT: ns(s.assertT), AssertSrc: s.assertSrc, AssertKind: s.assertKind, TurnT: ns(s.turnT),
		WaitT: ns(s.waitT), WaitSrc: s.waitSrc, PaneIdleT: ns(s.paneIdleT), PaneShownT: ns(s.paneShownT), PaneBusyT: ns(s.paneBusyT), NamedAt: ns(s.namedAt),
		IdleSeen: ns(s.idleSeen), Answered: s.answered, AnsweredAt: s.answeredAttn, AnsweredTx: s.answeredText, AnsweredT: ns(s.answeredT), PreSub: s.preSub,
		CallOpts: s.callOptions, CallTool: s.callTool, OptsScreen: s.screenOptions,
		SubTool: s.subTool, OldRuns: s.oldRuns, PIDSeen: ns(s.pidSeen), GoneAt: ns(s.goneAt), Last: ns(s.last),
		Hooked: s.hooked, Answer: s.answer, StaleAt: ns(s.staleAt), ViewPane: s.viewPane}
	if p := s.subPrev; p != (subPrevState{}) {
		b.SubPrev = &subPrev{p.status, p.attn, p.tool, p.toolID, p.text, p.pending}
	}
	for sub := range s.subs {
		b.Subs = append(b.Subs, sub)
	}
	slices.Sort(b.Subs)
	for id, c := range s.calls {
		if b.Calls == nil {
			b.Calls = map[string]*savedCall{}
		}
		b.Calls[id] = &savedCall{ns(c.t), c.tool, c.text, c.dismissed}
	}
	if len(b.SubTool) == 0 {
		b.SubTool = nil
	}
	if raw, err := json.Marshal(b); err == nil {
		e.Extra = append([]byte(`"fold":`), raw...)
	}
	return e
}

// restoreBook takes back what Saved put in a state's extra members; a
// state without them (an older ag-fold's) keeps what restore guessed.
func (s *session) restoreBook(extra []byte) {
	if len(extra) == 0 {
		return
	}
	var members struct {
		Fold *book `json:"fold"`
	}
	obj := append(append([]byte{'{'}, extra...), '}')
	if json.Unmarshal(obj, &members) != nil || members.Fold == nil {
		return
	}
	b := members.Fold
	if b.Since != 0 {
		s.since = fromNS(b.Since)
	}
	s.ctxFloor, s.ctxModel = b.CtxFloor, b.CtxModel
	s.assertT, s.assertSrc, s.assertKind = fromNS(b.AssertT), b.AssertSrc, b.AssertKind
	s.turnT = fromNS(b.TurnT)
	s.waitT, s.waitSrc, s.paneIdleT = fromNS(b.WaitT), b.WaitSrc, fromNS(b.PaneIdleT)
	s.paneShownT, s.paneBusyT = fromNS(b.PaneShownT), fromNS(b.PaneBusyT)
	s.namedAt, s.idleSeen = fromNS(b.NamedAt), fromNS(b.IdleSeen)
	s.answered, s.answeredAttn, s.answeredText, s.answeredT, s.preSub = b.Answered, b.AnsweredAt, b.AnsweredTx, fromNS(b.AnsweredT), b.PreSub
	s.callOptions, s.callTool, s.screenOptions = b.CallOpts, b.CallTool, b.OptsScreen
	s.calls = nil
	for id, c := range b.Calls {
		if c == nil || len(s.calls) >= maxCalls {
			continue
		}
		if s.calls == nil {
			s.calls = map[string]*call{}
		}
		s.calls[id] = &call{t: fromNS(c.T), tool: c.Tool, text: c.Text, dismissed: c.Dismissed}
	}
	s.subPrev = subPrevState{}
	if p := b.SubPrev; p != nil {
		s.subPrev = subPrevState{p.Status, p.Attn, p.Tool, p.ToolID, p.Text, p.Pending}
	}
	s.subTool, s.oldRuns = b.SubTool, b.OldRuns
	s.subs = nil
	if len(b.Subs) > 0 {
		s.subs = map[string]struct{}{}
		for _, sub := range b.Subs {
			s.subs[sub] = struct{}{}
		}
	}
	s.pidSeen, s.goneAt, s.last = fromNS(b.PIDSeen), fromNS(b.GoneAt), fromNS(b.Last)
	s.hooked, s.answer, s.staleAt = b.Hooked, b.Answer, fromNS(b.StaleAt)
	s.viewPane = b.ViewPane
}
