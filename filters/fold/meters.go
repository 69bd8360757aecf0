package fold

import (
	"slices"

	"github.com/agwatch/ag/filters/event"
)

// Meters: tokens add up; context, cost and limits are current values; the
// context window is what was last declared for the model in use.

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
