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
		if err := WriteMarked(path, time.Unix(2e9, 0), Writer{}, st, m); err != nil {
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
		if f, err := Parse(b); err != nil || len(f.Sessions) != 1 || f.Sessions[0].Session != "s1" {
			t.Errorf("Parse with mark %+v: %v %v", m, f, err)
		}
	}
	if m := ReadMark([]byte(`{"v":1,"t":"x","mark":"a\"b","after":"","sessions":[`)); m.ID != "" {
		t.Errorf("a quoted mark was read: %+v", m)
	}
	if Key("ab", nil) == Key("", []byte("ab")) {
		t.Error("an id and a line of the same bytes have one key")
	}
}

// TestForPaneOfManySessions: the sessions of one OpenCode server share its
// pane, which shows the worst of them (the newest waiting one among
// several); another process's sessions, or a one-session agent's, still go
// by time.
func TestForPaneOfManySessions(t *testing.T) {
	at := func(sec int) event.Time { return event.At(time.Date(2026, 11, 30, 12, 0, sec, 0, time.UTC)) }
	st := func(agent, session, status string, pid, sec int) event.Event {
		return event.Event{Kind: event.State, Agent: agent, Session: session, Pane: "%1", PID: pid, Status: status, T: at(sec)}
	}
	many := func(a string) bool { return a == "opencode" }
	for _, tc := range []struct {
		name   string
		states []event.Event
		want   string
	}{
		{"working behind a finished one", []event.Event{st("opencode", "a", "working", 9, 1), st("opencode", "b", "done", 9, 2)}, "a"},
		{"the newest of two waiting", []event.Event{st("opencode", "a", "waiting", 9, 1), st("opencode", "b", "waiting", 9, 3), st("opencode", "c", "working", 9, 4)}, "b"},
		{"another process: the newest", []event.Event{st("opencode", "a", "working", 8, 1), st("opencode", "b", "done", 9, 2)}, "b"},
		{"one session a process: the newest", []event.Event{st("claude", "a", "waiting", 9, 1), st("claude", "b", "idle", 9, 2)}, "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := ForPaneOf(tc.states, "%1", many); got.Session != tc.want {
				t.Errorf("ForPaneOf = %q, want %q", got.Session, tc.want)
			}
		})
	}
}
