package main

import (
	"context"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
)

// screen is what --panes last saw in one pane.
type screen struct {
	pid      int
	activity int64     // window_activity at the last capture
	captured time.Time // when it was captured
	hash     uint64    // of the captured text
	key      string    // the last recognised state: "wait…", "idle", "busy"
}

// classify captures the pane when it may have changed, runs the agent's
// pane rules and writes an event when the recognised state changed: a wait
// (with what is pending), a wait.end for a positively idle composer, and a
// wait.end (reason busy) for a working screen right after a prompt — the
// prompt was answered and the agent went on, which no hook reports (Claude
// says nothing between an approval and the tool's end). Any other working
// screen says nothing; an unrecognised one is ignored, so a half-drawn
// frame never undoes what was seen.
func (s *scanner) classify(ctx context.Context, sg sighting) error {
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
	if sc.hash != 0 && sg.activity == sc.activity && sc.captured.Unix() > sg.activity+1 {
		return nil
	}
	now := s.d.now()
	text, err := s.d.tmux.Capture(ctx, sg.pane, 0)
	if err != nil {
		return nil // the pane closed under us; the next scan drops it
	}
	h := fnv.New64a()
	h.Write([]byte(text))
	sum := h.Sum64() | 1 // never 0, which means "not captured yet"
	sc.activity, sc.captured = sg.activity, now
	if sum == sc.hash {
		return nil
	}
	sc.hash = sum
	r := panes.Classify(rules, text)
	var key string
	switch r.Kind {
	case panes.Wait:
		key = "wait\x00" + r.Attention + "\x00" + r.Tool + "\x00" + r.Text
	case panes.Idle:
		key = "idle"
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
	switch r.Kind {
	case panes.Wait:
		return s.emit(s.paneEvent(event.Wait, sg, r, now))
	case panes.Idle:
		return s.emit(s.paneEvent(event.WaitEnd, sg, r, now))
	case panes.Busy:
		if strings.HasPrefix(prev, "wait\x00") {
			return s.emit(s.paneEvent(event.WaitEnd, sg, r, now))
		}
	}
	return nil
}

// paneEvent is a wait or wait.end seen on screen. Its time is the capture's:
// the screen showed this then. (window_activity has whole seconds, so it
// would date a prompt before the hook's own wait for it, and ag-fold ignores
// pane evidence older than what it knows.) The id includes the window's
// activity instead: a restarted ag-detect seeing the same screen writes the
// same event, the same prompt shown again later is a new one.
func (s *scanner) paneEvent(kind string, sg sighting, r panes.Result, now time.Time) event.Event {
	e := event.New(kind, now, sg.found.Agent, "")
	e.Src = event.SrcPane
	e.Pane = sg.pane
	e.PID = sg.found.PID
	e.TTY = sg.tty
	e.Cwd = sg.cwd
	switch {
	case kind == event.Wait:
		e.Attention, e.Tool, e.Text = r.Attention, r.Tool, r.Text
	case r.Kind == panes.Busy:
		e.Reason = event.ReasonBusy
	default:
		e.Reason = event.ReasonIdle
	}
	e.ID = event.MakeID(event.SrcPane, "", kind, sg.pane, strconv.Itoa(sg.found.PID),
		e.Attention, e.Tool, e.Text, strconv.FormatInt(sg.activity, 10))
	return e
}
