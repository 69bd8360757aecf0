package state

import (
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

func TestForPane(t *testing.T) {
	at := func(sec int) event.Time { return event.At(time.Date(2026, 11, 30, 12, 0, sec, 0, time.UTC)) }
	st := func(session, pane, status string, sec int) event.Event {
		return event.Event{Kind: event.State, Agent: "claude", Session: session, Pane: pane, Status: status, T: at(sec)}
	}
	for _, tc := range []struct {
		name   string
		states []event.Event
		want   string // session; "" for none
	}{
		{"none", []event.Event{st("a", "%2", "idle", 1)}, ""},
		{"the one", []event.Event{st("a", "%1", "idle", 1)}, "a"},
		{"the newest", []event.Event{st("a", "%1", "done", 1), st("b", "%1", "working", 2)}, "b"},
		{"a live one over a gone one found dead later", []event.Event{st("a", "%1", "gone", 5), st("b", "%1", "idle", 2)}, "b"},
		{"a live one over a gone one at the same moment", []event.Event{st("a", "%1", "gone", 2), st("b", "%1", "working", 2)}, "b"},
		{"the newest of the gone", []event.Event{st("a", "%1", "gone", 2), st("b", "%1", "gone", 3)}, "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ForPane(tc.states, "%1")
			if ok != (tc.want != "") || got.Session != tc.want {
				t.Errorf("ForPane = %q (found %v), want %q", got.Session, ok, tc.want)
			}
		})
	}
}
