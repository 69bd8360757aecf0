package pi

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
)

// TestCheckpoints: a parser restored from a checkpoint taken after any
// line goes on as the one that read the whole file (provider.Checkpointer),
// the cost so far included.
func TestCheckpoints(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if c := "../../../shared/corpus/omp/session/omp-v3-ask-tool-round.jsonl"; fileExists(c) {
		files = append(files, c)
	}
	parsertest.CheckpointsFiles(t, func(string) provider.TranscriptParser {
		return NewSession(ID, "/h/.pi/agent/sessions/--tmp-w--/x.jsonl", NewModels("testdata/models.json").Window)
	}, files...)
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// TestBranchedCost: responses on every branch of the tree count towards
// the session's cost, an entry with only the message's milliseconds
// included; a restore half way gives the same last meter.
func TestBranchedCost(t *testing.T) {
	data, _ := os.ReadFile("testdata/branched.jsonl")
	lines := strings.SplitAfter(string(data), "\n")
	var last event.Event
	p := NewSession(ID, "/x.jsonl", nil)
	for i, l := range lines {
		if i == len(lines)/2 {
			b, err := p.Checkpoint()
			if err != nil {
				t.Fatal(err)
			}
			p = NewSession(ID, "/x.jsonl", nil)
			if err := p.Restore(b); err != nil {
				t.Fatal(err)
			}
		}
		p.Parse([]byte(strings.TrimSuffix(l, "\n")), func(e *event.Event) { last = *e })
	}
	if last.CostUSD == nil || math.Abs(*last.CostUSD-0.0024) > 1e-12 || last.Session != "01a31b07-6c2d-7000-8000-5e4f3a2b1c0d" {
		t.Errorf("last meter %s", event.Marshal(&last))
	}
}

// TestCheckpointFields: a field added to Session must be in its checkpoint
// too, or said here to be the file's own (agent, path, window).
func TestCheckpointFields(t *testing.T) {
	if n, c := reflect.TypeOf(Session{}).NumField(), reflect.TypeOf(sessionState{}).NumField(); n != c+3 {
		t.Errorf("Session has %d fields, its checkpoint %d: save the new one in session_state.go", n, c)
	}
}

func TestRestoreRefuses(t *testing.T) {
	for _, b := range []string{`{"v":2,"s":{"session":"s"}}`, `{"v":1,"s":{"cost":-1}}`, `{"session":"s"}`} {
		if err := NewSession(ID, "/x.jsonl", nil).Restore([]byte(b)); err == nil {
			t.Errorf("%s restored", b)
		}
	}
}

// FuzzSessionRestore: whatever a checkpoint holds, Restore never panics,
// and a parser it accepted reads on.
func FuzzSessionRestore(f *testing.F) {
	p := NewSession(ID, "/x.jsonl", nil)
	p.Parse([]byte(`{"type":"session","id":"s"}`), func(*event.Event) {})
	cp, _ := p.Checkpoint()
	f.Add(cp)
	f.Add([]byte(`{"v":1,"s":{"session":"","cost":1e308}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewSession(ID, "/x.jsonl", func(string, string) int64 { return 1000 })
		if r.Restore(b) != nil {
			return
		}
		r.Parse([]byte(`{"type":"message","id":"m","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","usage":{"input":5,"cost":{"total":1}}}}`), func(e *event.Event) {
			b := event.Marshal(e)
			var back event.Event
			if err := event.Decode(b[:len(b)-1], &back); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
		})
		if _, err := r.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	})
}
