package codex

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

// parseFile runs a fresh parser over a rollout and returns its events as
// NDJSON plus any line errors.
func parseFile(t testing.TB, path string) (ndjson []byte, errs []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewRollout(path)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	n := 0
	for sc.Scan() {
		n++
		err := r.Parse(sc.Bytes(), func(e *event.Event) {
			if err := e.Validate(); err != nil {
				t.Errorf("%s:%d: invalid event: %v", path, n, err)
			}
			ndjson = event.AppendJSON(ndjson, e)
		})
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	var out []event.Event
	for _, e := range r.Flush(out) {
		ndjson = event.AppendJSON(ndjson, &e)
	}
	return ndjson, errs
}

func TestRolloutGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/rollout-*.jsonl")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			got, errs := parseFile(t, path)
			if len(errs) > 0 {
				t.Fatalf("line errors: %v", errs)
			}
			// Paths in events are the fixture's relative path: stable.
			golden := strings.TrimSuffix(path, ".jsonl") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("events differ from %s (go test -update to accept):\n got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// kinds lists "kind[:detail]" for quick table checks.
func kinds(t testing.TB, lines ...string) []string {
	t.Helper()
	r := NewRollout("/x/rollout-2026-01-01T00-00-00-00000000-0000-0000-0000-000000000001.jsonl")
	var out []string
	for _, l := range lines {
		if err := r.Parse([]byte(l), func(e *event.Event) {
			s := e.Kind
			switch {
			case e.Text != "":
				s += ":" + e.Text
			case e.Tool != "":
				s += ":" + e.Tool
			case e.Model != "" && e.Kind == event.Meter && e.Tokens == nil:
				s += ":" + e.Model
			case e.Reason != "":
				s += ":" + e.Reason
			}
			out = append(out, s)
		}); err != nil {
			out = append(out, "error:"+err.Error())
		}
	}
	for _, e := range r.Flush(nil) {
		out = append(out, e.Kind+":flushed")
	}
	return out
}

func TestRolloutCases(t *testing.T) {
	const ts = `"timestamp":"2026-01-01T00:00:00.000Z",`
	started := `{` + ts + `"type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}`
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"prompt releases turn.start", []string{started,
			`{` + ts + `"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"text":"hi"}]}}}`},
			"turn.start:hi"},
		{"no prompt: flush releases", []string{started}, "turn.start:flushed"},
		{"tool releases turn.start first", []string{started,
			`{` + ts + `"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}`},
			"turn.start tool.start:ls"},
		{"model meter held behind turn.start", []string{started,
			`{` + ts + `"type":"turn_context","payload":{"turn_id":"t1","model":"m1"}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"user_message","message":"go"}}`},
			"turn.start:go meter:m1"},
		{"same model twice: one meter", []string{
			`{` + ts + `"type":"turn_context","payload":{"model":"m1"}}`,
			`{` + ts + `"type":"turn_context","payload":{"model":"m1"}}`},
			"meter:m1"},
		{"injected user text is no prompt", []string{
			`{` + ts + `"type":"event_msg","payload":{"type":"user_message","message":"<environment_context>x</environment_context>"}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"user_message","message":"<turn_aborted>"}}`},
			""},
		{"non-plain user_message kind is no prompt", []string{
			`{` + ts + `"type":"event_msg","payload":{"type":"user_message","message":"x","kind":"user_instructions"}}`},
			""},
		{"prompt queued mid-turn starts no turn", []string{started,
			`{` + ts + `"type":"event_msg","payload":{"type":"user_message","message":"a"}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"user_message","message":"b"}}`},
			"turn.start:a"},
		{"old shape: prompt starts, assistant message ends", []string{
			`{` + ts + `"type":"event_msg","payload":{"type":"user_message","message":"a"}}`,
			`{` + ts + `"type":"response_item","payload":{"type":"message","role":"assistant","content":[]}}`,
			`{` + ts + `"type":"response_item","payload":{"type":"message","role":"assistant","content":[]}}`},
			"turn.start:a turn.end"},
		{"new shape: assistant message does not end the turn", []string{started,
			`{` + ts + `"type":"response_item","payload":{"type":"message","role":"assistant","content":[]}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1"}}`},
			"turn.start turn.end"},
		// 0.171.0, the API answering 400: no Stop hook, this line.
		{"a failed turn", []string{started,
			`{` + ts + `"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":null,"error":{"message":"{\"error\":{\"message\":\"bad\",\"type\":\"invalid_request_error\"}}\n","codex_error_info":"other"}}}`},
			`turn.start turn.fail:{"error":{"message":"bad","type":"invalid_request_error"}}`},
		{"a failed turn's kind", []string{started,
			`{` + ts + `"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","error":{"message":"","codex_error_info":{"response_too_many_failed_attempts":{"http_status_code":500}}}}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"task_complete","turn_id":"t2","error":"stream disconnected"}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"task_complete","turn_id":"t3","error":null}}`},
			"turn.start turn.fail:response_too_many_failed_attempts turn.fail:stream disconnected turn.end"},
		// 0.171.0's /compact typed at the prompt: a task with no prompt.
		{"/compact is the compact tool, and its task's end is the tool's", []string{started,
			`{` + ts + `"type":"compacted","payload":{"message":"summary","replacement_history":[]}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"item_completed","item":{"type":"ContextCompaction","id":"c"}}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":null}}`},
			"turn.start tool.start:manual tool.end:manual"},
		{"compaction inside a prompted turn is automatic: the turn ends as usual", []string{started,
			`{` + ts + `"type":"event_msg","payload":{"type":"user_message","message":"go"}}`,
			`{` + ts + `"type":"compacted","payload":{"message":"summary"}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1"}}`},
			"turn.start:go turn.end"},
		{"compaction before the prompt of the same task: a turn that ends as usual", []string{started,
			`{` + ts + `"type":"compacted","payload":{"message":"summary"}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"user_message","message":"go"}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":"ok"}}`},
			"turn.start tool.start:manual turn.end:ok"},
		{"aborted", []string{started,
			`{` + ts + `"type":"event_msg","payload":{"type":"turn_aborted","turn_id":"t1","reason":"interrupted"}}`},
			"turn.start interrupt:interrupted"},
		{"outputs end tools by call id", []string{
			`{` + ts + `"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/a.go\n","call_id":"c2"}}`,
			`{` + ts + `"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"ok"}}`,
			`{` + ts + `"type":"response_item","payload":{"type":"function_call_output","call_id":"unknown","output":"ok"}}`},
			"tool.start:src/a.go tool.end:apply_patch tool.end"},
		{"a refused approval's output is a denied tool.end", []string{
			`{` + ts + `"type":"response_item","payload":{"type":"function_call_output","call_id":"c4","output":"Wall time: 0.9 seconds\naborted by user"}}`,
			`{` + ts + `"type":"response_item","payload":{"type":"function_call_output","call_id":"c5","output":"exec command rejected by user"}}`,
			`{` + ts + `"type":"response_item","payload":{"type":"function_call_output","call_id":"c6","output":"aborted by user\nexit 0"}}`,
			`{` + ts + `"type":"response_item","payload":{"type":"function_call_output","call_id":"c7","output":{"content":"aborted by user"}}}`},
			"tool.end:denied tool.end:denied tool.end tool.end"},
		{"local shell call", []string{
			`{` + ts + `"type":"response_item","payload":{"type":"local_shell_call","call_id":"c3","action":{"type":"exec","command":["bash","-lc","ls"]}}}`},
			"tool.start:bash -lc ls"},
		{"repeated token_count is one meter", []string{
			`{` + ts + `"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":10},"last_token_usage":{"total_tokens":10},"model_context_window":100000}}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":10},"last_token_usage":{"total_tokens":10},"model_context_window":100000}}}`},
			"meter"},
		{"token_count with nothing is nothing", []string{
			`{` + ts + `"type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":null,"secondary":null}}}`},
			""},
		{"sub-agent rollout yields nothing", []string{
			`{` + ts + `"type":"session_meta","payload":{"id":"s","thread_source":"subagent","parent_thread_id":"p"}}`, started},
			""},
		{"reviewer via source object", []string{
			`{` + ts + `"type":"session_meta","payload":{"id":"s","source":{"subagent":{"other":"guardian"}}}}`, started},
			""},
		{"oldest bare lines", []string{
			`{"id":"00000000-0000-0000-0000-000000000002","timestamp":"2025-05-01T00:00:00Z","instructions":null}`,
			`{"record_type":"state"}`,
			`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c"}`},
			"tool.start:ls"},
		{"0.17x: the user's own message releases the turn.start, harness text does not", []string{started,
			`{` + ts + `"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"AGENTS rules"}],"internal_chat_message_metadata_passthrough":{"content_item_metadata":[{"provenance":{"type":"harness"}}]}}}`,
			`{` + ts + `"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"do it"}],"internal_chat_message_metadata_passthrough":{"content_item_metadata":[{"provenance":{"type":"user"}}]}}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"text":"do it"}]}}}`},
			"turn.start:do it"},
		{"0.147: a user message without provenance waits for the item", []string{started,
			`{` + ts + `"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"[personal instructions]"}]}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"text":"real"}]}}}`},
			"turn.start:real"},
		{"token_usage_record counts a response once; token_count then only limits", []string{
			`{` + ts + `"type":"token_usage_record","payload":{"response_id":"r1","usage":{"total_tokens":5}}}`,
			`{` + ts + `"type":"token_usage_record","payload":{"response_id":"r1","usage":{"total_tokens":5}}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":5},"last_token_usage":{"total_tokens":5}}}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":5}},"rate_limits":{"primary":{"used_percent":1,"window_minutes":300}}}}`},
			"meter meter"},
		{"a reshaped member costs only itself", []string{
			`{` + ts + `"type":"event_msg","payload":{"type":"turn_aborted","reason":{"kind":"interrupted"},"turn_id":"t9"}}`},
			"interrupt"},
		{"garbage", []string{`{not json`}, "error:not a rollout line: invalid character 'n' looking for beginning of object key string"},
		{"bad timestamp", []string{`{"timestamp":"yesterday","type":"event_msg","payload":{}}`}, `error:bad timestamp "yesterday"`},
		{"unknown types ignored", []string{
			`{` + ts + `"type":"world_state","payload":{"x":1}}`,
			`{` + ts + `"type":"event_msg","payload":{"type":"thread_settings_applied"}}`,
			`{` + ts + `"type":"response_item","payload":{"type":"reasoning","summary":[]}}`},
			""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(kinds(t, tc.lines...), " ")
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRolloutMeters(t *testing.T) {
	r := NewRollout("rollout-x.jsonl")
	var got []event.Event
	line := `{"timestamp":"2026-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":37062,"cached_input_tokens":22016,"output_tokens":410,"total_tokens":37472},"last_token_usage":{"input_tokens":18682,"cached_input_tokens":11008,"cache_write_input_tokens":7,"output_tokens":132,"reasoning_output_tokens":58,"total_tokens":18814},"model_context_window":258400},"rate_limits":{"primary":{"used_percent":13.5,"window_minutes":300,"resets_at":1796012000},"secondary":{"used_percent":40,"window_minutes":10080,"resets_in_seconds":60}}}}`
	if err := r.Parse([]byte(line), func(e *event.Event) { got = append(got, *e) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d events", len(got))
	}
	e := got[0]
	if want := (event.Tokens{In: 18682 - 11008, Out: 132, CacheRead: 11008, CacheWrite: 7}); *e.Tokens != want {
		t.Errorf("tokens = %+v; want %+v", *e.Tokens, want)
	}
	if e.Context.Used != 18814 || e.Context.Size != 258400 || *e.Context.LeftPct != 97 {
		t.Errorf("context = %+v left %d", *e.Context, *e.Context.LeftPct)
	}
	if len(e.Limits) != 2 || e.Limits[0].Window != "5h" || e.Limits[0].UsedPct != 13.5 ||
		e.Limits[0].ResetsAt.Unix() != 1796012000 || e.Limits[1].Window != "7d" ||
		e.Limits[1].ResetsAt.String() != "2026-01-01T00:01:00.000Z" {
		t.Errorf("limits = %+v", e.Limits)
	}
}

func TestWindowName(t *testing.T) {
	for m, want := range map[int]string{300: "5h", 10080: "7d", 1440: "1d", 90: "90m", 60: "1h", 0: ""} {
		if got := WindowName(m); got != want {
			t.Errorf("WindowName(%d) = %q; want %q", m, got, want)
		}
	}
}

func TestSessionFromPath(t *testing.T) {
	for p, want := range map[string]string{
		"/h/.codex/sessions/2026/11/30/rollout-2026-11-30T02-16-40-01a22a3d-7489-75e1-a18e-a8dc8b3849ac.jsonl": "01a22a3d-7489-75e1-a18e-a8dc8b3849ac",
		"rollout-2025-05-01T10-00-00-ABCDEF01-2345-6789-ABCD-EF0123456789.jsonl":                               "abcdef01-2345-6789-abcd-ef0123456789",
		"rollout-nouuid.jsonl": "",
		"other.jsonl":          "",
	} {
		if got := SessionFromPath(p); got != want {
			t.Errorf("SessionFromPath(%q) = %q; want %q", p, got, want)
		}
	}
	if !IsRollout("/a/rollout-x.jsonl") || IsRollout("/a/rollout-x.json") || IsRollout("/a/history.jsonl") {
		t.Error("IsRollout")
	}
}

func FuzzRollout(f *testing.F) {
	files, _ := filepath.Glob("testdata/rollout-*.jsonl")
	for _, p := range files {
		b, _ := os.ReadFile(p)
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"id":"x"}`))
	f.Add([]byte(`{"type":"x"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r := NewRollout("rollout-2026-01-01T00-00-00-00000000-0000-0000-0000-000000000001.jsonl")
		for range 2 { // twice: state carried from a line must not break the next
			_ = r.Parse(line, func(e *event.Event) {
				if err := e.Validate(); err != nil {
					t.Fatalf("invalid event from %q: %v", line, err)
				}
				var back event.Event
				if err := event.Decode(event.Marshal(e)[:len(event.Marshal(e))-1], &back); err != nil {
					t.Fatalf("event does not round-trip: %v", err)
				}
			})
		}
		r.Flush(nil)
	})
}

func BenchmarkRollout(b *testing.B) {
	data, err := os.ReadFile("testdata/rollout-2026-11-30T02-16-40-01a22a3d-7489-75e1-a18e-a8dc8b3849ac.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	n := 0
	for b.Loop() {
		r := NewRollout("rollout-x.jsonl")
		for _, l := range lines {
			_ = r.Parse(l, func(*event.Event) { n++ })
		}
	}
}

// TestRolloutDrain: a reader at the end of what was written releases a
// held turn.start through provider.TranscriptDrainer, once.
func TestRolloutDrain(t *testing.T) {
	var p provider.TranscriptParser = NewRollout("/x/rollout-2026-01-01T00-00-00-00000000-0000-0000-0000-000000000001.jsonl")
	d, ok := p.(provider.TranscriptDrainer)
	if !ok {
		t.Fatal("the rollout parser is no TranscriptDrainer: a follower would hold turn.start until the next line")
	}
	var got []string
	emit := func(e *event.Event) { got = append(got, e.Kind+":"+e.Text) }
	if err := p.Parse([]byte(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}`), emit); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("turn.start not held: %q", got)
	}
	d.Drain(emit)
	d.Drain(emit)
	if strings.Join(got, " ") != "turn.start:" {
		t.Errorf("drained %q; want one turn.start", got)
	}
	p.Parse([]byte(`{"timestamp":"2026-01-01T00:00:00.100Z","type":"event_msg","payload":{"type":"user_message","message":"late"}}`), emit)
	if strings.Join(got, " ") != "turn.start:" {
		t.Errorf("after a late prompt: %q; want no second turn.start", got)
	}
}

func TestCheckpoints(t *testing.T) {
	files, _ := filepath.Glob("testdata/rollout-*.jsonl")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsertest.Checkpoints(t, func() provider.TranscriptParser { return NewRollout(f) }, data)
	}
}

// TestCheckpointFields: a field added to Rollout must be in its
// checkpoint too (or said why not here).
func TestCheckpointFields(t *testing.T) {
	// path is the file's, held is empty after Drain.
	if n, c := reflect.TypeOf(Rollout{}).NumField(), reflect.TypeOf(checkpoint{}).NumField(); n != c-1+2 {
		t.Errorf("Rollout has %d fields, its checkpoint %d (+ path, held, - v): keep them in step", n, c)
	}
}
