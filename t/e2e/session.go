//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// Session selects the state events of one agent session (session "" = the
// agent's first session seen).
type Session struct {
	w       *Watcher
	Agent   string
	ID      string
	Last    event.Event // the latest state event of the session consumed
	history []string    // distinct statuses consumed, in order
}

// Session follows the state events of one agent's session.
func (w *Watcher) Session(agent, id string) *Session {
	return &Session{w: w, Agent: agent, ID: id}
}

func (s *Session) match(e *event.Event) bool {
	if e.Kind != event.State || e.Agent != s.Agent {
		return false
	}
	if s.ID == "" && e.Session != "" {
		s.ID = e.Session
	}
	return e.Session == s.ID
}

// WaitFor returns the session's next state event satisfying match.
func (s *Session) WaitFor(t testing.TB, what string, timeout time.Duration, match func(*event.Event) bool) event.Event {
	t.Helper()
	e := s.w.WaitFor(t, fmt.Sprintf("state of %s session %q %s", s.Agent, s.ID, what), timeout, func(e *event.Event) bool {
		if !s.match(e) {
			return false
		}
		s.note(e)
		return match(e)
	})
	return e
}

// Drain consumes the events the pipeline has put out so far (the
// session's into Last and its history), so that the next WaitFor sees
// only what comes after: a repeat of a state already seen (a meter's
// update) is not news of it.
func (s *Session) Drain() {
	for {
		e, ok := s.w.Next(time.Now())
		if !ok {
			return
		}
		if s.match(&e) {
			s.note(&e)
		}
	}
}

func (s *Session) note(e *event.Event) {
	if s.Last.Status != e.Status || len(s.history) == 0 {
		s.history = append(s.history, e.Status)
	}
	s.Last = *e
}

// Expect consumes the session's state events until its status has gone
// through want, in order, and returns the first event of each status. A
// status change that is not the next one wanted fails the test at once: the
// sequence is exact (repeats of the current status, e.g. meter updates, are
// fine). Expect("working","done") after an idle session asserts idle →
// working → done.
func (s *Session) Expect(t testing.TB, timeout time.Duration, want ...string) []event.Event {
	t.Helper()
	deadline := time.Now().Add(timeout)
	got := []string{}
	var firsts []event.Event
	prev := s.Last.Status
	from := orDash(prev)
	for len(got) < len(want) {
		e, ok := s.w.Next(deadline)
		if !ok {
			t.Fatalf("%s: %s session %q: status went %s, want %s (%s after %s)", s.w.name, s.Agent, s.ID,
				path(from, got), path(from, want), s.w.why(), timeout)
		}
		if !s.match(&e) {
			continue
		}
		s.note(&e)
		if e.Status == prev {
			continue
		}
		// "idle/— →": a session first seen idle is where it started.
		if prev == "" && e.Status == event.StatusIdle && want[0] != event.StatusIdle {
			prev, from = e.Status, e.Status
			continue
		}
		got = append(got, e.Status)
		firsts = append(firsts, e)
		prev = e.Status
		if e.Status != want[len(got)-1] {
			t.Fatalf("%s: %s session %q: status went %s, want %s\nevent: %s", s.w.name, s.Agent, s.ID,
				path(from, got), path(from, want), event.Marshal(&e))
		}
	}
	return firsts
}

// History is every distinct status the session went through so far.
func (s *Session) History() []string { return append([]string(nil), s.history...) }

func path(from string, to []string) string {
	return strings.Join(append([]string{from}, to...), " → ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
