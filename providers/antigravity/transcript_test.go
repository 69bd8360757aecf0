package antigravity

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func parseSteps(t testing.TB, path string) (ndjson []byte, evs []event.Event) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := NewSteps(path)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		if err := s.Parse(sc.Bytes(), func(e *event.Event) {
			if err := e.Validate(); err != nil {
				t.Errorf("%s:%d: %v", path, n, err)
			}
			ndjson = event.AppendJSON(ndjson, e)
			evs = append(evs, *e)
		}); err != nil {
			t.Errorf("%s:%d: %v", path, n, err)
		}
	}
	return ndjson, evs
}

func TestStepsGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/brain/*/.system_generated/logs/transcript.jsonl")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range files {
		got, _ := parseSteps(t, path)
		golden := strings.TrimSuffix(path, ".jsonl") + ".golden"
		if *update {
			os.WriteFile(golden, got, 0o644)
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs:\n%s", golden, got)
		}
	}
}

func seq(evs []event.Event) string {
	var s []string
	for _, e := range evs {
		k := e.Kind
		if e.Kind == event.Meter {
			k += ":" + e.Model
		} else if e.Reason != "" {
			k += ":" + e.Reason
		} else if e.Tool != "" {
			k += ":" + e.Tool
		}
		s = append(s, k)
	}
	return strings.Join(s, " ")
}

func TestStepsSequence(t *testing.T) {
	path, _ := filepath.Glob("testdata/brain/*/.system_generated/logs/transcript.jsonl")
	_, evs := parseSteps(t, path[0])
	want := "meter:Gemini 3.6 Pro (High) turn.start tool.start:run_command tool.end:run_command tool.start:view_file tool.end:view_file turn.end " +
		"turn.start tool.start:run_command tool.end:denied"
	if got := seq(evs); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if evs[1].Session != "6f1d2c3b-8a9e-4b7c-9d0e-1f2a3b4c5d6e" || evs[1].Text != "Run the tests and tell me what fails." || evs[2].Text != "go test ./..." {
		t.Errorf("turn.start %+v\ntool.start %+v", evs[1], evs[2])
	}
}

// corpus is ../shared/corpus/antigravity beside the repository, or skip.
func corpus(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			c := filepath.Join(d, "..", "shared", "corpus", "antigravity")
			if _, err := os.Stat(c); err != nil {
				t.Skip("no ../shared/corpus")
			}
			return c
		}
	}
	t.Skip("no module root")
	return ""
}

// TestStepsCorpus: a real headless agy run (list_dir calls, their
// results, one refused with no result, steps 10 and 9 swapped, a
// run_command headless agy denied with no result step).
func TestStepsCorpus(t *testing.T) {
	src := filepath.Join(corpus(t), "transcript", "agy-brain-transcript-tool-run.jsonl")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// Where agy writes it: brain/<conversation>/.system_generated/logs/.
	path := filepath.Join(t.TempDir(), "b339e9c1-61e9-4aab-94c8-7322c29b77d3", ".system_generated", "logs", "transcript.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, b, 0o600)
	_, evs := parseSteps(t, path)
	// Step 2's call was refused (no step 3); step 10 answers step 9.
	want := "meter:Gemini 3.6 Flash (High) turn.start tool.start:list_dir tool.start:list_dir tool.end:list_dir " +
		"tool.start:list_dir tool.end:list_dir tool.start:list_dir tool.end:list_dir tool.start:run_command"
	if got := seq(evs); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, e := range evs {
		if e.Session != "b339e9c1-61e9-4aab-94c8-7322c29b77d3" {
			t.Fatalf("session %q", e.Session)
		}
		if e.Kind == event.ToolStart && e.Tool == "run_command" && e.Text != "pwd && ls -la" {
			t.Errorf("run_command text %q", e.Text)
		}
	}
}

func TestStepsCases(t *testing.T) {
	p := "/h/.gemini/antigravity-cli/brain/c1/.system_generated/logs/transcript_full.jsonl"
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"a repeated step counts once", []string{
			`{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-01-01T00:00:00Z","content":"<USER_REQUEST>hi</USER_REQUEST>"}`,
			`{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-01-01T00:00:00Z","content":"<USER_REQUEST>hi</USER_REQUEST>"}`,
		}, "turn.start"},
		{"an answer still running is no end", []string{
			`{"step_index":3,"source":"MODEL","type":"PLANNER_RESPONSE","status":"RUNNING","created_at":"2026-01-01T00:00:00Z","content":"partial"}`,
		}, ""},
		{"a bare prompt", []string{
			`{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-01-01T00:00:00Z","content":"hello"}`,
		}, "turn.start"},
		{"no step index", []string{`{"type":"USER_INPUT","content":"x"}`}, ""},
		{"a result with no call is nothing", []string{
			`{"step_index":5,"source":"MODEL","type":"VIEW_FILE","status":"DONE","created_at":"2026-01-01T00:00:00Z"}`,
		}, ""},
		{"results written before their calls end in the calls' order", []string{
			`{"step_index":3,"source":"MODEL","type":"VIEW_FILE","status":"DONE","created_at":"2026-01-01T00:00:02Z"}`,
			`{"step_index":4,"source":"MODEL","type":"RUN_COMMAND","status":"ERROR","created_at":"2026-01-01T00:00:03Z"}`,
			`{"step_index":2,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-01-01T00:00:01Z","tool_calls":[{"name":"a","args":{}},{"name":"b","args":{}}]}`,
		}, "tool.start:a tool.start:b tool.end:a tool.end:error"},
		{"not JSON", []string{`{"step_index":`}, "error"},
		{"bad time", []string{`{"step_index":1,"type":"USER_INPUT","created_at":"soon","content":"x"}`}, "error"},
		{"arguments of a surprising type", []string{
			`{"step_index":2,"source":"MODEL","type":"PLANNER_RESPONSE","status":"DONE","created_at":"2026-01-01T00:00:00Z","tool_calls":[{"name":"x","args":{"CommandLine":5}}]}`,
		}, "tool.start:x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSteps(p)
			var evs []event.Event
			var errs []string
			for _, l := range tc.lines {
				if err := s.Parse([]byte(l), func(e *event.Event) { evs = append(evs, *e) }); err != nil {
					errs = append(errs, "error")
				}
			}
			got := strings.TrimSpace(seq(evs) + " " + strings.Join(errs, " "))
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			for _, e := range evs {
				if e.Session != "c1" {
					t.Errorf("session %q", e.Session)
				}
			}
		})
	}
}

func FuzzSteps(f *testing.F) {
	b, _ := os.ReadFile("testdata/brain/6f1d2c3b-8a9e-4b7c-9d0e-1f2a3b4c5d6e/.system_generated/logs/transcript.jsonl")
	for _, l := range bytes.Split(b, []byte("\n")) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		s := NewSteps("/b/c1/.system_generated/logs/transcript.jsonl")
		for i := 0; i < 2; i++ {
			s.Parse(line, func(e *event.Event) {
				if err := e.Validate(); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// TestStepsNameOneTranscript: transcript.jsonl and transcript_full.jsonl
// hold the same steps, so their events name the same file (the one agy's
// hooks name), and a session's state does not depend on which was read
// first.
func TestStepsNameOneTranscript(t *testing.T) {
	dir := "/h/.gemini/antigravity-cli/brain/c1/.system_generated/logs"
	line := []byte(`{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","status":"DONE","created_at":"2026-01-01T00:00:00Z","content":"hi"}`)
	for _, f := range []string{"transcript.jsonl", "transcript_full.jsonl"} {
		var got []string
		if err := NewSteps(filepath.Join(dir, f)).Parse(line, func(e *event.Event) { got = append(got, e.Transcript) }); err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, "transcript.jsonl"); len(got) != 1 || got[0] != want {
			t.Errorf("%s: events name %q, want %q", f, got, want)
		}
	}
}
