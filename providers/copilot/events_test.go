package copilot

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// The recordings are events.jsonl files the real Copilot CLI 1.0.102 wrote
// (BYOK against a fake model server; the system prompt trimmed), with the
// hook payloads of the same runs in copilothook/testdata:
//
//	events-1.0.102.jsonl                    a plain turn; a command approved,
//	  one denied with Escape; one call with two dialogs (URL, then the
//	  command); a question answered; a file created; a request the API
//	  refused; Ctrl+C while working; /exit; resumed in plan mode: a plan
//	  accepted, one turned down with Escape; a question cancelled; /exit
//	events-1.0.102-subagent-rewind.jsonl    a sub-agent (task) whose command
//	  was approved; Escape Escape while working (the prompt taken back)
func recordings(t testing.TB) []string {
	files, _ := filepath.Glob("testdata/events-*.jsonl")
	if len(files) < 2 {
		t.Fatal("recordings missing")
	}
	return files
}

func parseFile(t testing.TB, path string) []event.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := NewEvents(path)
	var out []event.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if err := p.Parse(sc.Bytes(), func(e *event.Event) { out = append(out, *e) }); err != nil {
			t.Errorf("%s:%d: %v", filepath.Base(path), n, err)
		}
	}
	return out
}

func TestEventsGolden(t *testing.T) {
	for _, path := range recordings(t) {
		var got bytes.Buffer
		for _, e := range parseFile(t, path) {
			if err := e.Validate(); err != nil {
				t.Fatal(err)
			}
			got.Write(event.AppendJSON(nil, &e))
		}
		golden := strings.TrimSuffix(path, ".jsonl") + ".golden"
		if *update {
			if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("events differ from %s (go test -update to accept):\n%s", golden, got.String())
		}
	}
}

// short is an event as the tables below say it.
func short(e *event.Event) string {
	s := e.Kind
	for _, f := range []string{e.Sub, e.Attention, e.Tool, e.Reason, event.Clamp(e.Text, 30)} {
		if f != "" {
			s += " " + f
		}
	}
	return s
}

// TestEventsMeaning: what each recorded line must mean (meters aside).
func TestEventsMeaning(t *testing.T) {
	for path, want := range map[string][]string{
		"testdata/events-1.0.102.jsonl": {
			"session.start start",
			"turn.start say hello", "turn.end Hello from the fake model.",
			"turn.start RUN: echo marker > marker.txt",
			"tool.start bash echo marker > marker.txt",
			"wait permission shell echo marker > marker.txt", "wait.end approved",
			"tool.end bash", "turn.end Done.",
			// Escape on the dialog: cancelled, then the abort.
			"turn.start RUN: echo denied > denied.txt",
			"tool.start bash echo denied > denied.txt",
			"wait permission shell echo denied > denied.txt",
			"tool.end bash denied", "interrupt user_initiated",
			// One call, two dialogs, each answered.
			"turn.start RUN: curl -s http://example…",
			"tool.start bash curl -s http://example.com/z",
			"wait permission url http://example.com/z", "wait.end approved",
			"wait permission shell curl -s http://example.com/z", "wait.end approved",
			"tool.end bash", "turn.end Done.",
			`turn.start ASK: {"message":"Which data…`,
			"wait question ask_user Which database should I use?", "wait.end",
			"tool.end ask_user", "turn.end Done.",
			`turn.start TOOL: create {"path":"/tmp/…`,
			"tool.start create /tmp/cpx/rec/proj/new.txt",
			"wait permission write /tmp/cpx/rec/proj/new.txt", "wait.end approved",
			"tool.end create", "turn.end Done.",
			"turn.start FAIL400 please",
			"turn.fail query 400 400 bad request from fake",
			// Ctrl+C while the model is at work.
			"turn.start SLOW:8s wait", "interrupt user_initiated",
			"session.end routine",
			// Resumed: a plan accepted (digit), one refused with Escape.
			"session.start resume",
			`turn.start TOOL: exit_plan_mode {"summ…`,
			"wait plan exit_plan_mode - Add a marker file\n- Write…", "wait.end",
			"tool.end exit_plan_mode", "turn.end Hello from the fake model.",
			`turn.start TOOL: exit_plan_mode {"summ…`,
			"wait plan exit_plan_mode - Second plan",
			"tool.end exit_plan_mode denied", "interrupt user_initiated",
			// Escape on a question: the call ends, the model goes on.
			`turn.start ASK: {"message":"Which data…`,
			"wait question ask_user Which database should I use?",
			"tool.end ask_user", "turn.end Done.",
			"session.end routine",
		},
		"testdata/events-1.0.102-subagent-rewind.jsonl": {
			"session.start start",
			`turn.start TOOL: task {"description":"…`,
			"tool.start task Look around",
			// The sub-agent's dialog is the session's own (no sub), its
			// tool calls are the sub-agent's.
			"wait permission shell touch sub.txt",
			"tool.start call_1 bash touch sub.txt",
			"wait.end approved",
			"tool.end call_1 bash",
			"turn.end call_1",
			"tool.end task", "turn.end Done.",
			// Escape Escape: the prompt is gone from the file.
			"interrupt rewind",
			"session.end routine",
		},
	} {
		var got []string
		for _, e := range parseFile(t, path) {
			if e.Kind == event.Meter {
				continue
			}
			if e.Session == "" || e.Agent != ID || e.Src != event.SrcLog || e.Transcript != path || e.ID == "" || e.Cwd == "" {
				t.Errorf("%s: envelope %s", path, event.Marshal(&e))
			}
			got = append(got, short(&e))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", path, got, want)
		}
	}
}

func TestEventsMeters(t *testing.T) {
	var meters []event.Event
	for _, e := range parseFile(t, "testdata/events-1.0.102.jsonl") {
		if e.Kind == event.Meter {
			meters = append(meters, e)
		}
	}
	if len(meters) < 10 {
		t.Fatalf("%d meters", len(meters))
	}
	// The first request: its prompt, 1000 tokens of it cached, and 20 out,
	// against BYOK's default 128000-token prompt limit.
	m := meters[0]
	if m.Model != "fake-model" || m.Tokens == nil || m.Tokens.CacheRead != 1000 || m.Tokens.Out != 20 || m.Tokens.In < 100 ||
		m.Context == nil || m.Context.Used != m.Tokens.In+1000+20 || m.Context.Size != 128000 || *m.Context.LeftPct != 99 {
		t.Errorf("first meter %s", event.Marshal(&m))
	}
	// A sub-agent's request counts toward the session, not its context.
	for _, e := range parseFile(t, "testdata/events-1.0.102-subagent-rewind.jsonl") {
		if e.Kind == event.Meter && e.Sub != "" && (e.Context != nil || e.Tokens == nil) {
			t.Errorf("sub-agent meter %s", event.Marshal(&e))
		}
	}
}

// TestEventsIDsStable: a file read again (Escape Escape rewrites it) gives
// the same ids, so the fold takes each line once.
func TestEventsIDsStable(t *testing.T) {
	path := "testdata/events-1.0.102.jsonl"
	a, b := parseFile(t, path), parseFile(t, path)
	seen := map[string]bool{}
	for i := range a {
		if a[i].ID != b[i].ID {
			t.Fatalf("event %d: id %s then %s", i, a[i].ID, b[i].ID)
		}
		if seen[a[i].ID] {
			t.Errorf("id %s twice: %s", a[i].ID, event.Marshal(&a[i]))
		}
		seen[a[i].ID] = true
	}
}

func TestEventsBadLines(t *testing.T) {
	p := NewEvents("/h/.copilot/session-state/5b3fb863-fc1b-4b40-99b6-511921dc4d8b/events.jsonl")
	for _, l := range []string{`{"type":"abort"`, `not json`, `{"type":"abort","timestamp":"yesterday"}`} {
		if err := p.Parse([]byte(l), func(*event.Event) {}); err == nil {
			t.Errorf("%s: no error", l)
		}
	}
	var got []event.Event
	for _, l := range []string{``, `{"type":"hook.start","data":{}}`, `{"type":"future.kind","data":{"x":1},"timestamp":"2026-12-01T11:27:16.857Z"}`,
		`{"type":"abort","data":{"reason":7},"id":"a","timestamp":"2026-12-01T11:27:16.857Z"}`} {
		if err := p.Parse([]byte(l), func(e *event.Event) { got = append(got, *e) }); err != nil {
			t.Errorf("%s: %v", l, err)
		}
	}
	if len(got) != 1 || got[0].Kind != event.Interrupt || got[0].Session != "5b3fb863-fc1b-4b40-99b6-511921dc4d8b" {
		t.Errorf("got %v", got)
	}
}

// TestCorpusEvents reads the real events.jsonl files in
// ../shared/corpus/copilot (Copilot 1.0.80 and another version), if there.
func TestCorpusEvents(t *testing.T) {
	dir := corpus(t)
	evs := parseFile(t, filepath.Join(dir, "events", "copilot-1.0.80-permission-approved.events.jsonl"))
	var got []string
	for _, e := range evs {
		if e.Kind != event.Meter {
			got = append(got, short(&e))
		}
	}
	want := []string{"session.start start", "turn.start Delete the file NOTE.txt by…",
		"tool.start bash rm NOTE.txt", "wait permission shell rm NOTE.txt", "wait.end approved",
		"tool.end bash", "turn.end Done! I've deleted NOTE.txt…", "session.end routine"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("1.0.80:\n got %q\nwant %q", got, want)
	}
	if evs[0].Cwd != "/private/tmp/pixtuoid-capture/proj" || evs[0].Branch != "main" || evs[0].Session != "82c360e3-efb1-4f04-ba4a-1e583feaaba0" {
		t.Errorf("session.start %s", event.Marshal(&evs[0]))
	}
	evs = parseFile(t, filepath.Join(dir, "events", "copilot-permission-denied-pair.events.jsonl"))
	if len(evs) != 2 || short(&evs[0]) != "wait permission shell cat /etc/hostname" || short(&evs[1]) != "wait.end denied-interactively-by-user" {
		t.Errorf("denied pair: %v", evs)
	}
}

// corpus is ../shared/corpus/copilot beside the repository, or the test
// is skipped: the corpus is real agent output, never part of the
// repository.
func corpus(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			c := filepath.Join(d, "..", "shared", "corpus", "copilot")
			if _, err := os.Stat(c); err != nil {
				t.Skip("no ../shared/corpus")
			}
			return c
		}
	}
	t.Skip("no module root")
	return ""
}

// FuzzEvents: no line makes the parser panic or emit an invalid event.
func FuzzEvents(f *testing.F) {
	for _, path := range recordings(f) {
		data, _ := os.ReadFile(path)
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) < 3000 {
				f.Add(l)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		p := NewEvents("/h/.copilot/session-state/5b3fb863-fc1b-4b40-99b6-511921dc4d8b/events.jsonl")
		for range 2 {
			p.Parse(line, func(e *event.Event) {
				if err := e.Validate(); err != nil {
					t.Fatal(err)
				}
				var back event.Event
				if err := event.Decode(event.AppendJSON(nil, e), &back); err != nil {
					t.Fatalf("%v: %s", err, event.Marshal(e))
				}
			})
		}
	})
}

// TestCheckpoints: a parser restored from a checkpoint taken after any
// line goes on as the one that read it all (provider.Checkpointer).
func TestCheckpoints(t *testing.T) {
	for _, path := range recordings(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		parsertest.Checkpoints(t, func() provider.TranscriptParser { return NewEvents(path) }, data)
	}
}

// TestCheckpointFields: a field added to Events must be in its checkpoint
// too (path is the file's own).
func TestCheckpointFields(t *testing.T) {
	if n, c := reflect.TypeOf(Events{}).NumField(), reflect.TypeOf(checkpoint{}).NumField(); n != c-1+1 {
		t.Errorf("Events has %d fields, its checkpoint %d: save the new one in events_state.go", n, c)
	}
}
