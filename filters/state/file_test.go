package state

import (
	"os"
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

func TestMark(t *testing.T) {
	path := t.TempDir() + "/state.json"
	st := []event.Event{{V: 1, Kind: event.State, Agent: "claude", Session: "s1", Status: "idle", T: event.At(time.Unix(1e9, 0))}}
	for _, m := range []Mark{{}, {ID: "ab12.7"}, {ID: "ab12.8", After: []uint64{1, 1 << 63, Key("x", nil), Key("", []byte(`{"v":1}`))}}} {
		if err := WriteMarked(path, time.Unix(2e9, 0), st, m); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		got := ReadMark(b)
		if got.ID != m.ID || len(got.After) != len(m.After) {
			t.Fatalf("mark %+v read back as %+v from %s", m, got, b)
		}
		for i := range m.After {
			if got.After[i] != m.After[i] {
				t.Errorf("after[%d] = %x, want %x", i, got.After[i], m.After[i])
			}
		}
		if states, err := Parse(b); err != nil || len(states) != 1 || states[0].Session != "s1" {
			t.Errorf("Parse with mark %+v: %v %v", m, states, err)
		}
	}
	if m := ReadMark([]byte(`{"v":1,"t":"x","mark":"a\"b","after":"","sessions":[`)); m.ID != "" {
		t.Errorf("a quoted mark was read: %+v", m)
	}
	if Key("ab", nil) == Key("", []byte("ab")) {
		t.Error("an id and a line of the same bytes have one key")
	}
}
