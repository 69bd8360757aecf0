package gemini

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/parsertest"
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
		// Ctrl+C on a question (0.61.0): the cancel first, then the call.
		ctrlC       = `{"id":"i1","timestamp":"2026-01-01T00:00:09.000Z","type":"info","content":"Request cancelled."}`
		ctrlCCall   = `{"id":"g2","timestamp":"2026-01-01T00:00:09.002Z","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"ask_user","args":{"questions":[{"question":"Which"}]},"status":"cancelled","timestamp":"2026-01-01T00:00:09.001Z"}],"thoughts":[],"model":"gemini-3.8-flash"}`
		ctrlCResult = `{"id":"u2","timestamp":"2026-01-01T00:00:09.002Z","type":"user","content":[{"functionResponse":{"id":"c1","name":"ask_user","response":{"error":"[Operation Cancelled] Reason: Operation cancelled by user"}}}]}`
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
		{"a shell-mode command and leaving plan mode are no prompt", []string{head,
			`{"id":"u3","timestamp":"2026-01-01T00:00:30.000Z","type":"user","content":[{"text":"I ran the following shell command:\n` + "```" + `sh\necho hi\n` + "```" + `\n\nThis produced the following result:\n` + "```" + `\nhi\n` + "```" + `"}]}`,
			`{"id":"u4","timestamp":"2026-01-01T00:00:31.000Z","type":"user","content":[{"text":"User has manually exited Plan Mode. Switching to Default mode (edits will require confirmation)."}]}`,
			`{"id":"u5","timestamp":"2026-01-01T00:00:32.000Z","type":"user","content":[{"text":"I ran the following shell command: is what I typed"}]}`},
			"turn.start:I ran the following shell command: is what I typed"},
		{"Ctrl+C on a question: Request cancelled, then the cancelled call", []string{head,
			`{"id":"u1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"ask me"}]}`,
			`{"id":"g1","timestamp":"2026-01-01T00:00:02.000Z","type":"gemini","content":"I will call ask_user.","tokens":{"input":100,"output":5,"cached":40},"model":"gemini-3.8-flash"}`,
			ctrlC, ctrlCCall, ctrlCResult},
			"turn.start:ask me meter:gemini-3.8-flash interrupt:user tool.end:denied"},
		{"Ctrl+C on a question read after the answer was taken for the end", []string{head,
			`{"id":"u1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"ask me"}]}`,
			`{"id":"g1","timestamp":"2026-01-01T00:00:02.000Z","type":"gemini","content":"I will call ask_user.","tokens":{"input":100,"output":5,"cached":40},"model":"gemini-3.8-flash"}`,
			"DRAIN", ctrlC, ctrlCCall, ctrlCResult},
			"turn.start:ask me meter:gemini-3.8-flash turn.end:I will call ask_user. interrupt:user tool.end:denied"},
		{"Escape after an answer taken for the end: the turn was cut short", []string{head, prompt, answer, "DRAIN",
			`{"id":"i1","timestamp":"2026-01-01T00:00:09.200Z","type":"info","content":"Request cancelled."}`},
			"turn.start:hi meter:gemini-3.8-flash turn.end:hello interrupt:user"},
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

// TestChatCheckpoints: a JSONL chat's parser checkpointed at any line and
// restored into a fresh one goes on as one reader would, tokens once.
func TestChatCheckpoints(t *testing.T) {
	files, _ := filepath.Glob("testdata/chats/*.jsonl")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsertest.Checkpoints(t, func() provider.TranscriptParser { return NewChat(f) }, data)
	}
}

// longChat is a chat of n prompts and answers, as Gemini writes them.
func longChat(n int) (string, func(int) string) {
	var b strings.Builder
	b.WriteString(`{"sessionId":"s1","projectHash":"h","startTime":"2026-12-01T10:00:00.000Z","lastUpdated":"2026-12-01T10:00:00.000Z","kind":"main"}` + "\n")
	at := func(i int) string {
		return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
	}
	for i := range n {
		fmt.Fprintf(&b, `{"id":"u%d","timestamp":"%s","type":"user","content":[{"text":"prompt %d"}]}`+"\n", i, at(2*i), i)
		fmt.Fprintf(&b, `{"$set":{"lastUpdated":"%s"}}`+"\n", at(2*i))
		fmt.Fprintf(&b, `{"id":"g%d","timestamp":"%s","type":"gemini","content":"answer %d","tokens":{"input":100,"output":5,"cached":50},"model":"gemini-3.8-flash"}`+"\n", i, at(2*i+1), i)
	}
	return b.String(), at
}

// BenchmarkChatRestart: what a restarted reader spends on a 20,000-message
// chat to go on — reading it all again (no checkpoint) against restoring
// the checkpoint and reading the lines written since (10).
func BenchmarkChatRestart(b *testing.B) {
	chat, at := longChat(10000)
	var tail []string
	for i := range 5 {
		tail = append(tail, fmt.Sprintf(`{"id":"u%d","timestamp":"%s","type":"user","content":[{"text":"later %d"}]}`, 20000+i, at(30000+2*i), i),
			fmt.Sprintf(`{"id":"g%d","timestamp":"%s","type":"gemini","content":"ok","tokens":{"input":100,"output":5},"model":"m"}`, 20000+i, at(30001+2*i)))
	}
	read := func(c *Chat, lines []string) {
		for _, l := range lines {
			c.Parse([]byte(l), func(*event.Event) {})
		}
		c.Drain(func(*event.Event) {})
	}
	all := append(strings.Split(strings.TrimSpace(chat), "\n"), tail...)
	c := NewChat("/x/tmp/p/chats/session-a.jsonl")
	read(c, all[:len(all)-len(tail)])
	cp, _ := c.Checkpoint()
	b.Run("read again", func(b *testing.B) {
		b.SetBytes(int64(len(chat)))
		for b.Loop() {
			read(NewChat("/x/tmp/p/chats/session-a.jsonl"), all)
		}
	})
	b.Run("restore", func(b *testing.B) {
		for b.Loop() {
			r := NewChat("/x/tmp/p/chats/session-a.jsonl")
			if err := r.Restore(cp); err != nil {
				b.Fatal(err)
			}
			read(r, tail)
		}
		b.ReportMetric(float64(len(cp)), "checkpoint-bytes")
	})
}

// TestChatCheckpointBounded: a long chat's checkpoint stays small, and a
// response written again with its tool calls after a restart counts its
// tokens once and starts its calls once.
func TestChatCheckpointBounded(t *testing.T) {
	chat, at := longChat(500)
	chat += `{"id":"g500","timestamp":"` + at(1000) + `","type":"gemini","content":"I will run it.","tokens":{"input":100,"output":5,"cached":50},"model":"gemini-3.8-flash"}` + "\n"
	a := NewChat("/x/tmp/p/chats/session-a.jsonl")
	for l := range strings.Lines(chat) {
		a.Parse([]byte(l), func(*event.Event) {})
	}
	cp, err := a.Checkpoint()
	if err != nil || len(cp) > 8192 {
		t.Fatalf("checkpoint of a 1,000-message chat: %d bytes, %v", len(cp), err)
	}
	r := NewChat("/x/tmp/p/chats/session-a.jsonl")
	if err := r.Restore(cp); err != nil {
		t.Fatal(err)
	}
	var got []string
	emit := func(e *event.Event) { got = append(got, e.Kind+" "+e.Tool) }
	r.Parse([]byte(`{"id":"g500","timestamp":"`+at(1000)+`","type":"gemini","content":"I will run it.","tokens":{"input":100,"output":5,"cached":50},"model":"gemini-3.8-flash",`+
		`"toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls"},"status":"success","timestamp":"`+at(1001)+`"}]}`), emit)
	r.Parse([]byte(`{"id":"g0","timestamp":"`+at(1)+`","type":"gemini","content":"answer 0","tokens":{"input":100,"output":5,"cached":50},"model":"gemini-3.8-flash"}`), emit)
	r.Drain(emit)
	if strings.Join(got, ",") != "tool.start run_shell_command,tool.end run_shell_command" {
		t.Errorf("after a restore: %q; want the call started and ended, no meter, nothing for an old message", got)
	}
}

// TestCheckpointFields: a field added to Chat must be in its checkpoint
// too (or said why not here).
func TestCheckpointFields(t *testing.T) {
	// path, cwd, cwdRead and whole come from the path and the constructor;
	// seen, order and before are Msgs; V is the checkpoint's own.
	if n, c := reflect.TypeOf(Chat{}).NumField(), reflect.TypeOf(checkpoint{}).NumField(); n != c-1+4+2 {
		t.Errorf("Chat has %d fields, its checkpoint %d: keep them in step", n, c)
	}
}

// FuzzChatRestore: whatever a checkpoint holds, Restore never panics, and
// a parser it accepted reads on.
func FuzzChatRestore(f *testing.F) {
	c := NewChat("/x/tmp/p/chats/session-a.jsonl")
	for _, l := range []string{
		`{"sessionId":"s1","projectHash":"h"}`,
		`{"id":"u1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"hi"}]}`,
		`{"id":"g1","timestamp":"2026-01-01T00:00:02.000Z","type":"gemini","content":"hello","tokens":{"input":10},"model":"m"}`,
	} {
		c.Parse([]byte(l), func(*event.Event) {})
	}
	cp, _ := c.Checkpoint()
	f.Add(cp)
	f.Add([]byte(`{"v":2,"prompt":{"v":1},"msgs":[{"id":"x","t":"2026-01-01T00:00:00Z","tools":{"c":false}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewChat("/x/tmp/p/chats/session-a.jsonl")
		if r.Restore(b) != nil {
			return
		}
		r.Parse([]byte(`{"id":"g2","timestamp":"2026-01-01T00:00:03.000Z","type":"gemini","content":"more","tokens":{"input":10},"model":"m"}`), func(e *event.Event) {})
		r.Drain(func(*event.Event) {})
		if _, err := r.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	})
}
