package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/safetext"
)

// screen is what --panes last saw in one pane.
type screen struct {
	pid      int
	activity int64     // window_activity at the last capture
	captured time.Time // when it was captured
	hash     uint64    // of the captured text and title
	key      string    // the last recognised state: "wait…", "idle", "busy"
	working  bool      // rules with Turns: a turn.start was said, its end not yet
}

// classify captures the pane when it may have changed, runs the agent's
// pane rules and writes an event when the recognised state changed: a wait
// (with what is pending), a wait.end for a positively idle composer, and a
// wait.end (reason busy) for a working screen right after a prompt — the
// prompt was answered and the agent went on, which no hook reports (Claude
// says nothing between an approval and the tool's end). Any other working
// screen says nothing; an unrecognised one is ignored, so a half-drawn
// frame never undoes what was seen. For an agent whose screen alone says
// when it works (panes.Rules.Turns), a working screen after an idle one
// is a turn.start, and an idle one after work or a prompt a turn.end. changed says
// the pane is known to have changed (a control client heard it print):
// it is captured whatever its window's activity says.
func (s *scanner) classify(ctx context.Context, sg sighting, changed bool) error {
	rules := s.rules.panes[sg.found.Agent]
	if rules == nil {
		return nil
	}
	sc := s.screens[sg.pane]
	if sc == nil || sc.pid != sg.found.PID {
		sc = &screen{pid: sg.found.PID}
		s.screens[sg.pane] = sc
	}
	// window_activity has one-second resolution: only a capture taken a
	// whole second after the last activity is known to show its result.
	if !changed && sc.hash != 0 && sg.activity == sc.activity && sc.captured.Unix() > sg.activity+1 {
		return nil
	}
	now := s.d.now()
	title := ""
	if len(rules.Titles) > 0 {
		var err error
		if title, err = s.tm.Display(ctx, sg.pane, "#{pane_title}"); err != nil {
			return nil
		}
	}
	text, err := s.tm.Capture(ctx, sg.pane, 0)
	if err != nil {
		return nil // the pane closed under us; the next scan drops it
	}
	h := fnv.New64a()
	h.Write([]byte(title))
	h.Write([]byte{0})
	h.Write([]byte(text))
	sum := h.Sum64() | 1 // never 0, which means "not captured yet"
	sc.activity, sc.captured = sg.activity, now
	if sum == sc.hash {
		return nil
	}
	sc.hash = sum
	r := panes.ClassifyPane(rules, title, text)
	// A question's options, from its picker's rows, where ag-keys picks
	// them by label: the buttons for a wait whose events name none.
	options := keyplan.Options(s.rules.keys[sg.found.Agent], &r)
	var key string
	switch r.Kind {
	case panes.Wait:
		key = "wait\x00" + r.Attention + "\x00" + r.Tool + "\x00" + r.Text + "\x00" + strings.Join(options, "\x00")
	case panes.Idle:
		// By state: an agent that answers a failed request with its idle
		// composer at once (Auggie's API error) shows no other screen
		// between the prompt and the error's, and a state of its own for
		// that composer is the only news that the turn is over.
		key = "idle\x00" + r.State
	case panes.Busy:
		key = "busy"
	default:
		return nil
	}
	if key == sc.key {
		return nil
	}
	prev := sc.key
	sc.key = key
	why := screenWhy(rules, r, title, text)
	emit := func(kind string) error { return s.emit(s.paneEvent(kind, sg, r, now, why, options)) }
	switch r.Kind {
	case panes.Wait:
		sc.working = sc.working || rules.Turns
		return emit(event.Wait)
	case panes.Idle:
		if rules.Turns && sc.working {
			// The turn is over, however it ended: a prompt answered and
			// the work after it done between two reads, or refused.
			sc.working = false
			return emit(event.TurnEnd)
		}
		sc.working = false
		return emit(event.WaitEnd)
	case panes.Busy:
		if strings.HasPrefix(prev, "wait\x00") {
			return emit(event.WaitEnd)
		}
		if rules.Turns && !sc.working {
			sc.working = true
			return emit(event.TurnStart)
		}
	}
	return nil
}

// screenKey is what pane was last seen to mean ("" when nothing yet).
func (s *scanner) screenKey(pane string) string {
	if sc := s.screens[pane]; sc != nil {
		return sc.key
	}
	return ""
}

// screenWhy is the pane events' why: the state, and the line and pattern
// that placed it (or the title).
func screenWhy(rules *panes.Rules, r panes.Result, title, text string) string {
	if r.Title {
		for _, t := range rules.Titles {
			if t.Name == r.State {
				return clampWhy(fmt.Sprintf("%s: title %q ~ %s", r.State, title, t.Re))
			}
		}
	}
	for _, st := range rules.States {
		if st.Name == r.State {
			line := ""
			if l := panes.Lines(text, rules.Lines); r.Line >= 0 && r.Line < len(l) {
				line = strings.TrimSpace(l[r.Line])
			}
			return clampWhy(fmt.Sprintf("%s: line %d %q ~ %s", r.State, r.Line+1, line, st.Anchor))
		}
	}
	return r.State
}

// clampWhy keeps a why short and fit to leave ag: it rides on every pane
// event, and holds a line of the agent's screen (safetext).
func clampWhy(s string) string { return safetext.Line(s, 240) }

// paneEvent is an event seen on screen. Its time is the capture's: the
// screen showed this then. (window_activity has whole seconds, so it
// would date a prompt before the hook's own wait for it, and ag-fold
// ignores pane evidence older than what it knows.) The id includes the
// window's activity instead (a control client, which follows the pane
// without asking for it, the capture's time): a restarted ag-detect
// seeing the same screen writes the same event, the same prompt shown
// again later is a new one.
func (s *scanner) paneEvent(kind string, sg sighting, r panes.Result, now time.Time, why string, options []string) event.Event {
	e := event.New(kind, now, sg.found.Agent, "")
	e.Src = event.SrcPane
	e.Pane = sg.pane
	e.PID = sg.found.PID
	e.TTY = sg.tty
	e.Cwd = sg.cwd
	if sg.job != "" { // a viewer: the screen is the background session's
		e.Where, e.Job = event.WhereBackground, sg.job
	}
	e.Why = why
	switch {
	case kind == event.Wait:
		e.Attention, e.Tool, e.Text, e.Options = r.Attention, r.Tool, r.Text, options
	case kind != event.WaitEnd:
	case r.Kind == panes.Busy:
		e.Reason = event.ReasonBusy
	default:
		e.Reason = event.ReasonIdle
	}
	seen := strconv.FormatInt(sg.activity, 10)
	if sg.activity == 0 {
		seen = strconv.FormatInt(now.UnixMilli(), 10)
	}
	// The state's name too: two composers a second apart (a draft, then
	// the idle one a failed request left) are two events; and the options,
	// a picker read whole after a frame that showed part of it.
	parts := []string{event.SrcPane, "", kind, sg.pane, strconv.Itoa(sg.found.PID),
		e.Attention, e.Tool, e.Text, e.Reason, r.State, seen}
	e.ID = event.MakeID(append(parts, e.Options...)...)
	return e
}
