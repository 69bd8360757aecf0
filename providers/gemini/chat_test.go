package gemini

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// parseChat runs a fresh parser over a chat file as a reader would: line
// by line with a Drain at the end (.jsonl), or whole (.json).
func parseChat(t testing.TB, path string) (ndjson []byte, errs []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	emit := func(e *event.Event) {
		if err := e.Validate(); err != nil {
			t.Errorf("%s: invalid event: %v", path, err)
		}
		ndjson = event.AppendJSON(ndjson, e)
	}
	p := New().NewTranscriptParser(path)
	if w, ok := p.(provider.WholeFileParser); ok {
		if err := w.ParseWhole(data, emit); err != nil {
			errs = append(errs, err.Error())
		}
		return ndjson, errs
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		if err := p.Parse(sc.Bytes(), emit); err != nil {
			errs = append(errs, err.Error())
		}
	}
	p.(provider.TranscriptDrainer).Drain(emit)
	return ndjson, errs
}

// TestChatGolden: chats written by the real Gemini CLI 0.61.0 against the
// fake model server (a plain turn, an approved command, a denied one with
// the history Gemini records again, Escape while working, an API error,
// /resume) and a whole-file chat in the older format.
func TestChatGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/chats/*.json*")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range files {
		if strings.HasSuffix(path, ".golden") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			got, errs := parseChat(t, path)
			if len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			golden := path[:len(path)-len(filepath.Ext(path))] + ".golden"
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

// kinds runs lines through a fresh Chat and lists "kind[:detail]", with a
// Drain where a line is "DRAIN" and at the end.
func kinds(t testing.TB, lines ...string) []string {
	t.Helper()
	c := NewChat("/x/tmp/p/chats/session-2026-01-01T00-00-aaaaaaaa.jsonl")
	var out []string
	emit := func(e *event.Event) {
		s := e.Kind
		switch {
		case e.Kind == event.Meter:
			s += ":" + e.Model
		case e.Reason != "":
			s += ":" + e.Reason
		case e.Text != "":
			s += ":" + e.Text
		case e.Tool != "":
			s += ":" + e.Tool
		}
		out = append(out, s)
	}
	for _, l := range append(lines, "DRAIN") {
		if l == "DRAIN" {
			c.Drain(emit)
			continue
		}
		if err := c.Parse([]byte(l), emit); err != nil {
			out = append(out, "error:"+err.Error())
		}
	}
	return out
}

func TestChatCases(t *testing.T) {
	const (
		head   = `{"sessionId":"s1","projectHash":"h","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z","kind":"main"}`
		prompt = `{"id":"u1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"hi"}]}`
		answer = `{"id":"g1","timestamp":"2026-01-01T00:00:02.000Z","type":"gemini","content":"hello","thoughts":[],"tokens":{"input":100,"output":5,"cached":40,"thoughts":2,"tool":0,"total":107},"model":"gemini-3.8-flash"}`
		call   = `{"id":"g1","timestamp":"2026-01-01T00:00:02.000Z","type":"gemini","content":"hello","tokens":{"input":100,"output":5,"cached":40},"model":"gemini-3.8-flash","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls"},"status":"%s","timestamp":"2026-01-01T00:00:09.000Z"}]}`
		result = `{"id":"u2","timestamp":"2026-01-01T00:00:09.100Z","type":"user","content":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"x"}}}]}`
		final  = `{"id":"g2","timestamp":"2026-01-01T00:00:10.000Z","type":"gemini","content":"done","tokens":{"input":120,"output":3,"cached":0},"model":"gemini-3.8-flash"}`
	)
	status := func(s string) string { return strings.Replace(call, "%s", s, 1) }
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"plain turn", []string{head, prompt, answer}, "turn.start:hi meter:gemini-3.8-flash turn.end:hello"},
		{"no header: nothing", []string{prompt, answer}, ""},
		{"tokens counted once across upserts", []string{head, prompt, answer, answer, status("success"), result, final},
			"turn.start:hi meter:gemini-3.8-flash tool.start:ls tool.end:run_shell_command meter:gemini-3.8-flash turn.end:done"},
		{"an answer before its tool calls is no end, even drained between", []string{head, prompt, answer, "DRAIN", status("success"), result, final},
			"turn.start:hi meter:gemini-3.8-flash turn.end:hello tool.start:ls tool.end:run_shell_command meter:gemini-3.8-flash turn.end:done"},
		{"held end: the tool calls come in the same read", []string{head, prompt, answer, status("success"), result, final},
			"turn.start:hi meter:gemini-3.8-flash tool.start:ls tool.end:run_shell_command meter:gemini-3.8-flash turn.end:done"},
		{"denied: cancelled call, Request cancelled", []string{head, prompt, answer, status("cancelled"),
			`{"id":"i1","timestamp":"2026-01-01T00:00:09.200Z","type":"info","content":"Request cancelled."}`},
			"turn.start:hi meter:gemini-3.8-flash tool.start:ls tool.end:denied interrupt:user"},
		{"a failed tool", []string{head, prompt, status("error")}, "turn.start:hi meter:gemini-3.8-flash tool.start:ls tool.end:error"},
		{"escape while working", []string{head, prompt,
			`{"id":"i1","timestamp":"2026-01-01T00:00:03.000Z","type":"info","content":"Request cancelled."}`},
			"turn.start:hi interrupt:user"},
		{"api error", []string{head, prompt,
			`{"$set":{"messages":[{"id":"u0","timestamp":"2026-01-01T00:00:00.500Z","type":"user","content":[{"text":"<session_context>x</session_context>"}]},{"id":"u1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"hi"}]}]}}`,
			`{"id":"e1","timestamp":"2026-01-01T00:00:03.000Z","type":"error","content":"[API Error: {\"error\":{\"code\":429,\"message\":\"quota\"}}]"}`},
			"turn.start:hi turn.fail:rate_limit"},
		{"an error at the prompt is no failed turn", []string{head,
			`{"id":"e1","timestamp":"2026-01-01T00:00:03.000Z","type":"error","content":"Unknown command: /x"}`}, ""},
		{"history recorded again after a cancel is no news", []string{head, prompt, answer, status("cancelled"),
			`{"id":"i1","timestamp":"2026-01-01T00:00:09.200Z","type":"info","content":"Request cancelled."}`,
			`{"id":"r1","timestamp":"2026-01-01T00:00:09.300Z","type":"user","content":[{"text":"<session_context>\nctx\n</session_context>"},{"text":"older prompt"}]}`,
			`{"id":"r2","timestamp":"2026-01-01T00:00:09.300Z","type":"gemini","content":[{"text":"older answer"}],"thoughts":[],"tokens":null}`,
			`{"id":"r3","timestamp":"2026-01-01T00:00:09.300Z","type":"user","content":[{"text":"another older prompt"}]}`,
			`{"id":"r4","timestamp":"2026-01-01T00:00:09.300Z","type":"gemini","content":[{"text":"x"},{"functionCall":{"name":"run_shell_command","args":{}}}],"tokens":null}`,
			`{"$set":{"messages":[{"id":"r1","timestamp":"2026-01-01T00:00:09.300Z","type":"user","content":[]}]}}`,
			`{"id":"u9","timestamp":"2026-01-01T00:00:20.000Z","type":"user","content":[{"text":"next"}]}`},
			"turn.start:hi meter:gemini-3.8-flash tool.start:ls tool.end:denied interrupt:user turn.start:next"},
		{"a rewrite that does not start with the context block", []string{head,
			`{"id":"r3","timestamp":"2026-01-01T00:00:09.300Z","type":"user","content":[{"text":"summary of older turns"}]}`,
			`{"id":"r4","timestamp":"2026-01-01T00:00:09.300Z","type":"gemini","content":[{"text":"ok"}],"tokens":null}`},
			""},
		{"the next prompt ends a held answer", []string{head, prompt, answer,
			`{"id":"u3","timestamp":"2026-01-01T00:00:30.000Z","type":"user","content":[{"text":"more"}]}`},
			"turn.start:hi meter:gemini-3.8-flash turn.end:hello turn.start:more"},
		{"slash commands and injected blocks are no prompt", []string{head,
			`{"id":"u3","timestamp":"2026-01-01T00:00:30.000Z","type":"user","content":[{"text":"/compress"}]}`,
			`{"id":"u4","timestamp":"2026-01-01T00:00:31.000Z","type":"user","content":[{"text":"<hook_context>x</hook_context>"}]}`},
			""},
		{"resume starts the session again", []string{head, prompt, answer,
			`{"$set":{"sessionId":"s1"}}`,
			`{"$set":{"messages":[{"id":"u1","timestamp":"2026-01-01T01:00:00.000Z","type":"user","content":[{"text":"hi"}]}]}}`},
			"turn.start:hi meter:gemini-3.8-flash turn.end:hello session.start:resume"},
		{"not JSON", []string{head, `{"id":`}, "error:not a chat record: unexpected end of JSON input"},
		{"bad timestamp", []string{head, `{"id":"u1","timestamp":"yesterday","type":"user","content":"hi"}`},
			`error:message u1: bad timestamp "yesterday"`},
		{"fields of a surprising type", []string{head,
			`{"id":"u1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":"hi","tokens":"lots"}`,
			`{"id":"g1","timestamp":"2026-01-01T00:00:02.000Z","type":"gemini","content":"yes","model":"m","toolCalls":"none"}`},
			"turn.start:hi turn.end:yes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(kinds(t, tc.lines...), " ")
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestChatMeters(t *testing.T) {
	c := NewChat("/x/chats/session-a.jsonl")
	var ms []event.Event
	for _, l := range []string{
		`{"sessionId":"s1","projectHash":"h"}`,
		`{"id":"g1","timestamp":"2026-01-01T00:00:02.000Z","type":"gemini","content":"x","tokens":{"input":200000,"output":50,"cached":150000,"thoughts":10,"tool":7},"model":"gemma-4-31b-it"}`,
	} {
		c.Parse([]byte(l), func(e *event.Event) {
			if e.Kind == event.Meter {
				ms = append(ms, *e)
			}
		})
	}
	if len(ms) != 1 {
		t.Fatalf("%d meters", len(ms))
	}
	m := ms[0]
	if *m.Tokens != (event.Tokens{In: 50007, Out: 60, CacheRead: 150000}) {
		t.Errorf("tokens %+v", *m.Tokens)
	}
	if m.Context.Used != 200000 || m.Context.Size != 256000 || *m.Context.LeftPct != 22 {
		t.Errorf("context %+v left %d", *m.Context, *m.Context.LeftPct)
	}
}

func TestContextWindow(t *testing.T) {
	for model, want := range map[string]int64{
		"gemini-3.1-pro-preview": 1048576, "gemini-2.5-pro": 1048576, "gemini-3.8-flash": 1048576,
		"auto-gemini-3": 1048576, "": 1048576, "gemma-4-26b-a4b-it": 256000, "gemma-4-31b-it": 256000,
	} {
		if got := ContextWindow(model); got != want {
			t.Errorf("ContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
	// 12% used is what the footer shows for 125,829 of 1,048,576.
	if c := Context(125829, "gemini-2.5-pro"); *c.LeftPct != 88 {
		t.Errorf("left %d", *c.LeftPct)
	}
}

// TestChatJSONRewrites: a whole-file chat read after each rewrite emits
// each message's events once; an unchanged rewrite emits nothing.
func TestChatJSONRewrites(t *testing.T) {
	j := NewChatJSON("/x/tmp/h/chats/session-2025-11-01T10-00-aaaaaaaa.json")
	doc := func(msgs ...string) []byte {
		return []byte(`{"sessionId":"s1","projectHash":"h","startTime":"2025-11-01T10:00:00.000Z","lastUpdated":"x","messages":[` + strings.Join(msgs, ",") + `]}`)
	}
	u := `{"id":"u1","timestamp":"2025-11-01T10:00:01.000Z","type":"user","content":"list files"}`
	g := `{"id":"g1","timestamp":"2025-11-01T10:00:02.000Z","type":"gemini","content":"","tokens":{"input":10,"output":2}}`
	gt := `{"id":"g1","timestamp":"2025-11-01T10:00:02.000Z","type":"gemini","content":"","tokens":{"input":10,"output":2},"toolCalls":[{"id":"c1","name":"list_directory","args":{"dir_path":"."},"status":"success","timestamp":"2025-11-01T10:00:03.000Z"}]}`
	f := `{"id":"g2","timestamp":"2025-11-01T10:00:04.000Z","type":"gemini","content":"two files","tokens":{"input":20,"output":3}}`
	var got []string
	read := func(data []byte) {
		if err := j.ParseWhole(data, func(e *event.Event) { got = append(got, e.Kind) }); err != nil {
			t.Fatal(err)
		}
		got = append(got, "|")
	}
	read(doc(u))
	read(doc(u, g))
	read(doc(u, gt))
	read(doc(u, gt))
	read(doc(u, gt, f))
	want := "turn.start | meter | tool.start tool.end | | meter turn.end |"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	if err := j.ParseWhole([]byte(`{"sessionId":`), func(*event.Event) {}); err == nil {
		t.Error("a torn file is an error")
	}
}

func FuzzChat(f *testing.F) {
	files, _ := filepath.Glob("testdata/chats/*.jsonl")
	for _, path := range files {
		data, _ := os.ReadFile(path)
		for _, l := range bytes.Split(data, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c := NewChat("/x/chats/session-a.jsonl")
		emit := func(e *event.Event) {
			if err := e.Validate(); err != nil {
				t.Fatalf("invalid event %v from %q", err, line)
			}
		}
		c.Parse([]byte(`{"sessionId":"s","projectHash":"h"}`), emit)
		c.Parse(line, emit)
		c.Parse(line, emit)
		c.Drain(emit)
		j := NewChatJSON("/x/chats/session-a.json")
		j.ParseWhole(line, emit)
	})
}

// TestChatJSONCheckpoint: a restarted reader restored from a checkpoint
// emits only what the file gained meanwhile, tokens once.
func TestChatJSONCheckpoint(t *testing.T) {
	data, err := os.ReadFile("testdata/chats/session-2025-11-02T09-14-7c1e2a90.json")
	if err != nil {
		t.Fatal(err)
	}
	a := NewChatJSON("/x/tmp/h/chats/session-a.json")
	var all []string
	a.ParseWhole(data, func(e *event.Event) { all = append(all, e.Kind) })
	cp, err := a.Checkpoint()
	if err != nil || len(cp) > 4096 {
		t.Fatalf("checkpoint %d bytes, %v", len(cp), err)
	}
	b := NewChatJSON("/x/tmp/h/chats/session-a.json")
	if err := b.Restore(cp); err != nil {
		t.Fatal(err)
	}
	more := strings.Replace(string(data), `"content": "Request cancelled."
    }`, `"content": "Request cancelled."
    },
    {"id": "n1", "timestamp": "2025-11-02T09:17:00.000Z", "type": "user", "content": "try again"}`, 1)
	var got []string
	b.ParseWhole([]byte(more), func(e *event.Event) { got = append(got, e.Kind) })
	if strings.Join(got, " ") != "turn.start" {
		t.Errorf("after restore: %v (first read: %v)", got, all)
	}
	if err := NewChatJSON("/x").Restore([]byte(`{"v":9}`)); err == nil {
		t.Error("a checkpoint of another format is refused")
	}
}
