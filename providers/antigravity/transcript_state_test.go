package antigravity

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
)

// TestStepsCheckpoints: a parser restored from a checkpoint taken after
// any line goes on as one that read the whole transcript
// (provider.Checkpointer): steps repeated, written late, results before
// their call.
func TestStepsCheckpoints(t *testing.T) {
	files, _ := filepath.Glob("testdata/brain/*/.system_generated/logs/transcript*.jsonl")
	parsertest.CheckpointsFiles(t, func(f string) provider.TranscriptParser { return NewSteps(f) }, files...)
}

// TestStepsCheckpointsCorpus: the same over a real headless agy run,
// where agy writes it.
func TestStepsCheckpointsCorpus(t *testing.T) {
	path := "/h/.gemini/antigravity-cli/brain/b339e9c1-61e9-4aab-94c8-7322c29b77d3/.system_generated/logs/transcript.jsonl"
	parsertest.CheckpointsFiles(t, func(string) provider.TranscriptParser { return NewSteps(path) },
		filepath.Join(corpus(t), "transcript", "agy-brain-transcript-tool-run.jsonl"))
}

// longSteps is a conversation of n turns as agy writes them: a prompt, a
// response with two calls of which the second is refused (no result step:
// a gap in the numbering), the first one's result — written before its
// call every third turn, and written twice every fifth — and the answer.
func longSteps(n int) []byte {
	var b strings.Builder
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	line := func(i int, src, typ, status, rest string) string {
		return fmt.Sprintf(`{"step_index":%d,"source":%q,"type":%q,"status":%q,"created_at":%q%s}`+"\n",
			i, src, typ, status, t0.Add(time.Duration(i)*time.Second).Format(time.RFC3339), rest)
	}
	for k := range n {
		i := k * 5
		b.WriteString(line(i, "USER_EXPLICIT", "USER_INPUT", "DONE", fmt.Sprintf(`,"content":"<USER_REQUEST>\nstep %d\n</USER_REQUEST>"`, k)))
		call := line(i+1, "MODEL", "PLANNER_RESPONSE", "DONE", `,"tool_calls":[{"name":"view_file","args":{"AbsolutePath":"\"/w/a.go\""}},{"name":"run_command","args":{"CommandLine":"\"rm -rf /w\""}}]`)
		result := line(i+2, "MODEL", "VIEW_FILE", "DONE", `,"content":"File Path: /w/a.go"`)
		if k%3 == 0 {
			call, result = result, call
		}
		b.WriteString(call + result)
		if k%5 == 0 {
			b.WriteString(result)
		}
		b.WriteString(line(i+4, "MODEL", "PLANNER_RESPONSE", "DONE", `,"content":"Refused: left it."`))
	}
	return []byte(b.String())
}

// TestStepsCheckpointLong: however long the conversation, its checkpoint
// stays a few KB, and a parser restored from it still goes on exactly
// (60 turns: more runs, calls and results than a checkpoint keeps).
func TestStepsCheckpointLong(t *testing.T) {
	path := "/b/c1/.system_generated/logs/transcript.jsonl"
	parsertest.Checkpoints(t, func() provider.TranscriptParser { return NewSteps(path) }, longSteps(60))
	data := longSteps(300)
	s := NewSteps(path)
	for l := range strings.Lines(string(data)) {
		s.Parse([]byte(strings.TrimSuffix(l, "\n")), func(*event.Event) {})
	}
	b, err := s.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.seen) != 301 || len(b) > 4096 {
		t.Errorf("%d runs read, checkpoint %d bytes: %s", len(s.seen), len(b), b)
	}
	// A step long before the newest kept counts as read; one of the last
	// gaps does not.
	r := NewSteps(path)
	if err := r.Restore(b); err != nil {
		t.Fatal(err)
	}
	if !r.seen.has(3) || r.seen.has(300*5-2) || !r.seen.has(300*5-1) {
		t.Errorf("restored runs %v", r.seen)
	}
}

func TestRuns(t *testing.T) {
	for _, tc := range []struct {
		add  []int64
		want runs
	}{
		{nil, nil},
		{[]int64{0, 1, 2}, runs{{0, 2}}},
		{[]int64{2, 0, 1}, runs{{0, 2}}},
		{[]int64{0, 2, 4, 3}, runs{{0, 0}, {2, 4}}},
		{[]int64{5, 1, 3, 2, 4}, runs{{1, 5}}},
		{[]int64{math.MaxInt64, math.MinInt64, math.MinInt64 + 1, math.MaxInt64 - 1}, runs{{math.MinInt64, math.MinInt64 + 1}, {math.MaxInt64 - 1, math.MaxInt64}}},
	} {
		var r runs
		for _, i := range tc.add {
			if r.has(i) {
				t.Fatalf("%v: %d before it was added", tc.add, i)
			}
			r.add(i)
			if !r.has(i) {
				t.Fatalf("%v: %d not there once added", tc.add, i)
			}
		}
		if !slices.Equal(r, tc.want) {
			t.Errorf("%v: %v, want %v", tc.add, r, tc.want)
		}
	}
}

// TestStepsCheckpointFields: a field added to Steps must be in its
// checkpoint too, or said here to be the file's own (path, session, named).
func TestStepsCheckpointFields(t *testing.T) {
	if n, c := reflect.TypeOf(Steps{}).NumField(), reflect.TypeOf(stepsState{}).NumField(); n != c+3 {
		t.Errorf("Steps has %d fields, its checkpoint %d: save the new one in transcript_state.go", n, c)
	}
}

func TestStepsRestoreRefuses(t *testing.T) {
	for _, b := range []string{
		`{"v":2,"s":{}}`,
		`{"v":1,"s":{"seen":[[3,1]]}}`,
		`{"v":1,"s":{"seen":[[0,4],[4,6]]}}`,
		`{"v":1,"s":{"seen":[[0,4]],"responses":[{"i":7,"tools":["x"]}]}}`,
		`{"v":1,"s":{"seen":[[0,4]],"early":[{"i":3,"t":"soon"}]}}`,
	} {
		if err := NewSteps("/b/c1/.system_generated/logs/transcript.jsonl").Restore([]byte(b)); err == nil {
			t.Errorf("%s restored", b)
		}
	}
}

// FuzzStepsRestore: whatever a checkpoint holds, Restore never panics, and
// a parser it accepted reads on.
func FuzzStepsRestore(f *testing.F) {
	path := "/b/c1/.system_generated/logs/transcript.jsonl"
	s := NewSteps(path)
	for l := range strings.Lines(string(longSteps(40))) {
		s.Parse([]byte(strings.TrimSuffix(l, "\n")), func(*event.Event) {})
	}
	cp, _ := s.Checkpoint()
	f.Add(cp)
	f.Add([]byte(`{"v":1,"s":{"seen":[[-9223372036854775808,9223372036854775807]],"responses":[{"i":0,"tools":["x"]}],"early":[{"i":1,"t":"2026-01-01T00:00:00Z"}]}}`))
	steps := longSteps(2)
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewSteps(path)
		if r.Restore(b) != nil {
			return
		}
		for l := range strings.Lines(string(steps)) {
			r.Parse([]byte(strings.TrimSuffix(l, "\n")), func(e *event.Event) {
				if err := e.Validate(); err != nil {
					t.Fatal(err)
				}
			})
		}
		if _, err := r.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	})
}
