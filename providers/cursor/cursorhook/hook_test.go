package cursorhook

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/provider"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// session is a Cursor chat as cursor-agent 2026.09.18's hooks describe it
// (written here from the keys its payloads carry, ../shared/corpus/cursor,
// with values of our own): each line is {"ms": when, "payload": stdin}.
// A Read that ran at once; a Shell call that waited 14 s for its approval;
// a second prompt with two calls at once, one ending, then C-c.
const session = "testdata/hooks-2026.09.18.jsonl"

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

type line struct {
	ms      int64
	payload []byte
}

// Read reads a recording of hook payloads (the cursor package replays it).
func Read(t testing.TB, path string) []line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l line
		if err := jsonscan.Members(sc.Bytes(), func(k string, v []byte) error {
			switch k {
			case "ms":
				s := jsonscan.Scanner{B: v}
				l.ms, _ = s.Int()
			case "payload":
				l.payload = bytes.Clone(v)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

func hc(ms int64) provider.HookContext {
	return provider.HookContext{Now: t0.Add(time.Duration(ms) * time.Millisecond), PID: 31337, TTY: "/dev/pts/4", Pane: "%9", Cwd: "/elsewhere", Host: "box"}
}

func TestGolden(t *testing.T) {
	var got bytes.Buffer
	for i, l := range Read(t, session) {
		evs, err := Mapper{}.MapHook(l.payload, hc(l.ms))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, e := range evs {
			if err := e.Validate(); err != nil {
				t.Fatal(err)
			}
			got.Write(event.AppendJSON(nil, &e))
		}
	}
	golden := strings.TrimSuffix(session, ".jsonl") + ".golden"
	if *update {
		os.WriteFile(golden, got.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("events differ from %s (go test -update to accept):\n%s", golden, got.String())
	}
}

func TestMeaning(t *testing.T) {
	var got []string
	for _, l := range Read(t, session) {
		evs, err := Mapper{}.MapHook(l.payload, hc(l.ms))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Session != "2f6c1b9e-7d3a-4e58-9a41-0c5e8b7d2a13" || e.Cwd != "/home/dev/proj" || e.PID != 31337 || e.Pane != "%9" {
				t.Errorf("envelope %s", event.Marshal(&e))
			}
			s := e.Kind
			for _, f := range []string{e.Tool, e.ToolID, e.Reason, event.Clamp(e.Text, 24)} {
				if f != "" {
					s += " " + f
				}
			}
			got = append(got, s)
		}
	}
	want := []string{
		"session.start startup",
		"turn.start Delete the file NOTE.…",
		"tool.start Read tool_9b1e6c2a-51f4-4f0e-b2d7-6c1a3e8f0d42 /home/dev/proj/NOTE.txt",
		"tool.end Read tool_9b1e6c2a-51f4-4f0e-b2d7-6c1a3e8f0d42",
		"tool.start Shell tool_3c7a9e15-08d2-4b6f-a4e1-9d2f7b0c5e88 rm NOTE.txt",
		"tool.end Shell tool_3c7a9e15-08d2-4b6f-a4e1-9d2f7b0c5e88",
		"turn.end",
		"turn.start Now run the tests and…",
		"tool.start Shell tool_5e2b8d41-7a3c-4f19-8b6e-2c0d9a4f7e13 npm test",
		"tool.start Grep tool_71d4f0a6-2e8b-4c53-9f1a-6b3e5d8c2a07 TODO",
		"tool.end Grep tool_71d4f0a6-2e8b-4c53-9f1a-6b3e5d8c2a07",
		"interrupt aborted",
		"session.end user_close",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCases(t *testing.T) {
	const c = `"conversation_id":"c1","generation_id":"g1","model":"auto","cursor_version":"2026.09.18-9a7762b","workspace_roots":["/w"]`
	for _, tc := range []struct{ name, payload, want string }{
		{"stop completed", `{` + c + `,"hook_event_name":"stop","status":"completed","loop_count":0}`, "turn.end"},
		{"stop with an error", `{` + c + `,"hook_event_name":"stop","status":"error","loop_count":0}`, "turn.fail error"},
		{"a call refused", `{` + c + `,"hook_event_name":"postToolUseFailure","tool_name":"Shell","tool_use_id":"t1","failure_type":"permission_denied","error_message":"rejected"}`, "tool.end Shell t1 denied"},
		{"a call failed", `{` + c + `,"hook_event_name":"postToolUseFailure","tool_name":"Shell","tool_use_id":"t1","failure_type":"error"}`, "tool.end Shell t1 error"},
		{"only a session_id", `{"session_id":"c1","hook_event_name":"sessionEnd","reason":"user_close"}`, "session.end user_close"},
		{"a hand-installed beforeShellExecution", `{` + c + `,"hook_event_name":"beforeShellExecution","command":"make","cwd":"/w"}`, "tool.start Shell make"},
		{"afterAgentResponse is no event", `{` + c + `,"hook_event_name":"afterAgentResponse","text":"hi"}`, ""},
	} {
		evs, err := Mapper{}.MapHook([]byte(tc.payload), hc(0))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := ""
		for _, e := range evs {
			got = e.Kind
			for _, f := range []string{e.Tool, e.ToolID, e.Reason, e.Text} {
				if f != "" {
					got += " " + f
				}
			}
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	for in, want := range map[string]string{
		`{"hook_event_name":"stop"}`: `stop without "conversation_id"`,
		`{"conversation_id":"c"}`:    `no "hook_event_name"`,
		`[1]`:                        "hook payload",
	} {
		if _, err := (Mapper{}).MapHook([]byte(in), hc(0)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// TestAnswer: every payload, even none or garbage, gets "{}": no
// decision (an empty preToolUse answer is a deny).
func TestAnswer(t *testing.T) {
	for _, in := range []string{"", "not json", `{"hook_event_name":"preToolUse"}`} {
		if got := string(Mapper{}.Answer([]byte(in))); got != "{}\n" {
			t.Errorf("Answer(%q) = %q", in, got)
		}
	}
}

// TestCorpus maps the keys-only payloads cursor-agent 2026.09.18 sent
// (../shared/corpus/cursor, values blanked upstream), if there.
func TestCorpus(t *testing.T) {
	dir, _ := os.Getwd()
	var path string
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			path = filepath.Join(d, "..", "shared", "corpus", "cursor", "hooks", "cursor-agent-2026.09.18-hooks-keys-only.jsonl")
			break
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skip("no ../shared/corpus")
	}
	var kinds []string
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		evs, err := Mapper{}.MapHook(l, hc(0))
		if err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		for _, e := range evs {
			if e.Session != "b2d7667c-e54f-4e3b-a889-141a04a470c5" {
				t.Errorf("session from session_id: %s", event.Marshal(&e))
			}
			kinds = append(kinds, e.Kind+" "+e.Tool)
		}
	}
	if got := strings.Join(kinds, ","); got != "session.start ,tool.start Read,tool.start Shell,tool.end ,tool.start Grep,session.end " {
		t.Errorf("kinds %s", got)
	}
}

func FuzzMapHook(f *testing.F) {
	for _, l := range Read(f, session) {
		f.Add(l.payload)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		evs, err := Mapper{}.MapHook(raw, hc(0))
		if err != nil {
			return
		}
		for _, e := range evs {
			if err := e.Validate(); err != nil {
				t.Fatal(err)
			}
			var back event.Event
			if err := event.Decode(event.AppendJSON(nil, &e), &back); err != nil {
				t.Fatal(err)
			}
		}
	})
}
