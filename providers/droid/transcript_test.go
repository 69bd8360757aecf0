package droid

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
)

// testdata/session.jsonl and session.settings.json were recorded from
// droid 0.225.2 in tmux: a turn, an approved command, a denied one, an
// Escape while it worked, /quit.
const sessionFile = "testdata/session.jsonl"

// TestSessionEvents: what the recorded session means, turn by turn.
func TestSessionEvents(t *testing.T) {
	data, err := os.ReadFile(sessionFile)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(sessionFile)
	var got []string
	for l := range bytes.Lines(data) {
		if err := s.Parse(bytes.TrimSuffix(l, []byte("\n")), func(e *event.Event) {
			if e.Agent != ID || e.Session != "d00d1a3c-277d-41c5-bfd5-2525b34d51d0" || e.Cwd != "/tmp/qx/dc/work" || e.T.IsZero() {
				t.Errorf("event %s", event.Marshal(e))
			}
			k := e.Kind
			if e.Reason != "" {
				k += ":" + e.Reason
			}
			if e.Kind == event.ToolStart {
				k += ":" + e.Tool + ":" + e.Text
			}
			got = append(got, k)
		}); err != nil {
			t.Error(err)
		}
	}
	want := []string{
		"turn.start", "turn.end",
		"turn.start", "tool.start:Execute:echo marker > marker.txt", "tool.end", "turn.end",
		"turn.start", "tool.start:Execute:echo denied > denied.txt", "tool.end:denied", "turn.end",
		"turn.start", "interrupt:user",
	}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTotals: the settings file's totals become one meter, then nothing
// until they grow, and then only the growth.
func TestTotals(t *testing.T) {
	data, err := os.ReadFile("testdata/session.settings.json")
	if err != nil {
		t.Fatal(err)
	}
	tt := NewTotals("testdata/session.settings.json")
	var got []event.Event
	emit := func(e *event.Event) { got = append(got, *e) }
	tt.ParseWhole(data, emit)
	tt.ParseWhole(data, emit)
	if len(got) != 1 {
		t.Fatalf("%d meters, want 1", len(got))
	}
	m := got[0]
	if m.Session != "session" || m.Model != "custom:Fake-Model-0" ||
		*m.Tokens != (event.Tokens{In: 27072, Out: 68, CacheRead: 27070}) || m.Context == nil || m.Context.Used != 6761+6760 {
		t.Errorf("meter %s", event.Marshal(&m))
	}
	grown := bytes.Replace(data, []byte(`"outputTokens": 68,`), []byte(`"outputTokens": 100,`), 1)
	tt.ParseWhole(grown, emit)
	if len(got) != 2 || got[1].Tokens.Out != 32 || got[1].Tokens.In != 0 {
		t.Errorf("after growth: %d meters, last %+v", len(got), got[len(got)-1].Tokens)
	}
}

// TestCheckpoints: provider.Checkpointer's contract at every line.
func TestCheckpoints(t *testing.T) {
	parsertest.CheckpointsFiles(t, func(f string) provider.TranscriptParser { return NewSession(f) }, sessionFile)
}

// FuzzSession: no line makes the parser fail but bytes that are no JSON,
// and every event it emits is one of this session's.
func FuzzSession(f *testing.F) {
	data, _ := os.ReadFile(sessionFile)
	for l := range bytes.Lines(data) {
		f.Add(bytes.TrimSpace(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		s := NewSession("/s/abc.jsonl")
		s.Parse(line, func(e *event.Event) {
			if e.Agent != ID || e.Src != event.SrcLog || e.ID == "" || e.Session == "" {
				t.Fatalf("bad event %s", event.Marshal(e))
			}
		})
		NewTotals("/s/abc.settings.json").ParseWhole(line, func(e *event.Event) {
			if e.Kind != event.Meter || e.Tokens == nil || e.Tokens.In < 0 || e.Tokens.Out < 0 {
				t.Fatalf("bad meter %s", event.Marshal(e))
			}
		})
	})
}
