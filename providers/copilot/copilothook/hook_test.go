package copilothook

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

// recorded is a session of the real Copilot CLI 1.0.102 (BYOK against a
// fake model): each line is {"hook": the event its command named,
// "payload": the stdin it got}.
const recorded = "testdata/hooks-1.0.102.jsonl"

// hcAt is the context ag-hook gives a hook at the payload's moment.
func hcAt(ms int64, hook string) provider.HookContext {
	return provider.HookContext{Now: time.UnixMilli(ms).Add(3 * time.Millisecond), PID: 26179, TTY: "/dev/pts/0",
		Pane: "%3", Cwd: "/elsewhere", Host: "box", Event: hook}
}

type line struct {
	hook    string
	payload []byte
	ts      int64
}

func readRecorded(t testing.TB) []line { return ReadRecorded(t, recorded) }

// ReadRecorded reads one recording.
func ReadRecorded(t testing.TB, path string) []line {
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
		err := jsonscan.Members(sc.Bytes(), func(k string, v []byte) error {
			switch k {
			case "hook":
				l.hook = jsonscan.Text(v)
			case "payload":
				l.payload = bytes.Clone(v)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s:%d: %v", path, len(out)+1, err)
		}
		var p payload
		if err := parse(l.payload, &p); err != nil {
			t.Fatal(err)
		}
		l.ts = p.Timestamp
		out = append(out, l)
	}
	return out
}

// TestRecordedGolden maps every recorded payload of every recording; the
// golden files hold every field.
func TestRecordedGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/hooks-*.jsonl")
	if len(files) < 2 {
		t.Fatal("recordings missing")
	}
	for _, path := range files {
		var got bytes.Buffer
		for i, l := range ReadRecorded(t, path) {
			evs, err := Mapper{}.MapHook(l.payload, hcAt(l.ts, l.hook))
			if err != nil {
				t.Fatalf("%s:%d (%s): %v", path, i+1, l.hook, err)
			}
			for _, e := range evs {
				if err := e.Validate(); err != nil {
					t.Fatalf("%s:%d: %v", path, i+1, err)
				}
				got.Write(event.AppendJSON(nil, &e))
			}
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

// TestRecordedMeaning: what the recorded session must mean, hook by hook.
func TestRecordedMeaning(t *testing.T) {
	type want struct{ kind, attn, tool, text string }
	var got []want
	for _, l := range readRecorded(t) {
		evs, err := Mapper{}.MapHook(l.payload, hcAt(l.ts, l.hook))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Agent != ID || e.Session != "5b3fb863-fc1b-4b40-99b6-511921dc4d8b" || e.PID != 26179 || e.Pane != "%3" ||
				e.Cwd != "/tmp/cpx/rec/proj" || !e.T.Equal(time.UnixMilli(l.ts)) {
				t.Errorf("envelope of %s: %s", l.hook, event.Marshal(&e))
			}
			got = append(got, want{e.Kind, e.Attention, e.Tool, event.Clamp(e.Text, 40)})
		}
	}
	exp := []want{
		{event.SessionStart, "", "", "new"},
		{event.TurnStart, "", "", "say hello"},
		{event.TurnEnd, "", "", ""},
		// An approved command: the dialog's notification is the wait.
		{event.TurnStart, "", "", "RUN: echo marker > marker.txt"},
		{event.ToolStart, "", "bash", "echo marker > marker.txt"},
		{event.Wait, event.AttnPermission, "shell", "echo marker > marker.txt"},
		{event.ToolEnd, "", "bash", ""},
		{event.TurnEnd, "", "", ""},
		// Escape on the dialog: no hook at all after it (events.jsonl says).
		{event.TurnStart, "", "", "RUN: echo denied > denied.txt"},
		{event.ToolStart, "", "bash", "echo denied > denied.txt"},
		{event.Wait, event.AttnPermission, "shell", "echo denied > denied.txt"},
		// One call, two dialogs: the URL, then the command.
		{event.TurnStart, "", "", "RUN: curl -s http://example.com/z"},
		{event.ToolStart, "", "bash", "curl -s http://example.com/z"},
		{event.Wait, event.AttnPermission, "url", "http://example.com/z"},
		{event.Wait, event.AttnPermission, "shell", "curl -s http://example.com/z"},
		{event.ToolEnd, "", "bash", ""},
		{event.TurnEnd, "", "", ""},
		// ask_user: the call is the question; its notification adds nothing.
		{event.TurnStart, "", "", `ASK: {"message":"Which database shoul…`},
		{event.Wait, event.AttnQuestion, "ask_user", "Which database should I use?"},
		{event.Wait, event.AttnQuestion, "", ""},
		{event.ToolEnd, "", "ask_user", ""},
		{event.TurnEnd, "", "", ""},
		{event.TurnStart, "", "", `TOOL: create {"path":"/tmp/cpx/rec/pr…`},
		{event.ToolStart, "", "create", "/tmp/cpx/rec/proj/new.txt"},
		{event.Wait, event.AttnPermission, "write", "/tmp/cpx/rec/proj/new.txt"},
		{event.ToolEnd, "", "create", ""},
		{event.TurnEnd, "", "", ""},
		// A request the API refused fires only errorOccurred (once per
		// retry): the log's session.error ends the turn. Ctrl+C fires
		// nothing either: the log's abort.
		{event.TurnStart, "", "", "FAIL400 please"},
		{event.TurnStart, "", "", "SLOW:8s wait"},
		{event.SessionEnd, "", "", ""},
		// Resumed in plan mode: the prompt is Copilot's wrapper around
		// the request; the plan review has no notification.
		{event.SessionStart, "", "", "resume"},
		{event.TurnStart, "", "", `TOOL: exit_plan_mode {"summary":"- Ad…`},
		{event.Wait, event.AttnPlan, "exit_plan_mode", "- Add a marker file\n- Write tests"},
		{event.ToolEnd, "", "exit_plan_mode", ""},
		{event.TurnEnd, "", "", ""},
		// Escape on a plan: nothing (the log's abort).
		{event.TurnStart, "", "", `TOOL: exit_plan_mode {"summary":"- Se…`},
		{event.Wait, event.AttnPlan, "exit_plan_mode", "- Second plan"},
		// Escape on a question does not end the turn: the form's call
		// ends with "User cancelled the request." and the model goes on.
		{event.TurnStart, "", "", `ASK: {"message":"Which database shoul…`},
		{event.Wait, event.AttnQuestion, "ask_user", "Which database should I use?"},
		{event.Wait, event.AttnQuestion, "", ""},
		{event.ToolEnd, "", "ask_user", ""},
		{event.TurnEnd, "", "", ""},
		{event.SessionEnd, "", "", ""},
	}
	if len(got) != len(exp) {
		for _, g := range got {
			t.Logf("%+v", g)
		}
		t.Fatalf("%d events, want %d", len(got), len(exp))
	}
	for i := range exp {
		if got[i] != exp[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], exp[i])
		}
	}
}

func TestMapHookCases(t *testing.T) {
	const s = `"sessionId":"s1","timestamp":1796124253760,"cwd":"/p"`
	for _, tc := range []struct {
		name, hook, payload string
		want                []event.Event // only the fields set are compared
	}{
		{"permissionRequest decides: ag maps none", HookPermissionRequest,
			`{"hookName":"permissionRequest",` + s + `,"toolName":"bash","toolInput":{"command":"ls"},"permissionSuggestions":[]}`, nil},
		{"errorOccurred fires for every retry: none", HookErrorOccurred,
			`{` + s + `,"errorContext":"model_call","recoverable":true,"error":{"message":"500","name":"Error"}}`, nil},
		{"an idle notification is no wait", HookNotification,
			`{` + s + `,"message":"Copilot is idle","title":"Idle","hook_event_name":"Notification","notification_type":"agent_idle"}`, nil},
		{"a permission message of an unknown shape is the text", HookNotification,
			`{` + s + `,"message":"Allow the thing?","hook_event_name":"Notification","notification_type":"permission_prompt"}`,
			[]event.Event{{Kind: event.Wait, Attention: event.AttnPermission, Text: "Allow the thing?"}}},
		{"a path outside the folder", HookNotification,
			`{` + s + `,"message":"Path permission needed: /etc/hostname","title":"Permission needed","hook_event_name":"Notification","notification_type":"permission_prompt"}`,
			[]event.Event{{Kind: event.Wait, Attention: event.AttnPermission, Tool: "read", Text: "/etc/hostname"}}},
		{"postToolUseFailure", HookPostToolUseFailure,
			`{` + s + `,"toolName":"bash","toolArgs":{"command":"x"},"error":"boom"}`,
			[]event.Event{{Kind: event.ToolEnd, Tool: "bash", Reason: "error"}}},
		{"no event named: the payload's members say", "",
			`{` + s + `,"toolName":"view","toolArgs":{"path":"/etc/hostname"}}`,
			[]event.Event{{Kind: event.ToolStart, Tool: "view", Text: "/etc/hostname"}}},
		{"no event named: a notification says so itself", "",
			`{` + s + `,"message":"Run command: ls","hook_event_name":"Notification","notification_type":"permission_prompt"}`,
			[]event.Event{{Kind: event.Wait, Attention: event.AttnPermission, Tool: "shell", Text: "ls"}}},
		{"no event named: agentStop", "", `{` + s + `,"transcriptPath":"/t","stopReason":"end_turn","stop_hook_active":false}`,
			[]event.Event{{Kind: event.TurnEnd}}},
		{"a plan-mode prompt is the request", HookUserPrompt,
			`{` + s + `,"prompt":"[[PLAN]] I want to create an implementation plan. Please:\n1. Analyze\n\nMy request: cache the parser"}`,
			[]event.Event{{Kind: event.TurnStart, Text: "cache the parser"}}},
		// Copilot 1.0.102's task tool: the sub-agent's own hooks carry its
		// id as the session, and the parent's.
		{"a sub-agent's prompt is the parent session's, marked", HookUserPrompt,
			`{"sessionId":"e681b040-5e0b-4807-b858-14591f197c4a","timestamp":1796124253760,"cwd":"/p","prompt":"List the files here and report","agentId":"e681b040-5e0b-4807-b858-14591f197c4a","agentType":"explore","parentAgentId":"s1"}`,
			[]event.Event{{Kind: event.TurnStart, Session: "s1", Sub: "e681b040-5e0b-4807-b858-14591f197c4a", Text: "List the files here and report"}}},
		{"a timestamp far from the hook's clock is not used", HookAgentStop,
			`{"sessionId":"s1","timestamp":1,"stopReason":"end_turn"}`,
			[]event.Event{{Kind: event.TurnEnd, T: event.At(time.UnixMilli(1796124253760).Add(3 * time.Millisecond))}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Mapper{}.MapHook([]byte(tc.payload), hcAt(1796124253760, tc.hook))
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != len(tc.want) {
				t.Fatalf("%d events, want %d: %v", len(evs), len(tc.want), evs)
			}
			for i, w := range tc.want {
				e := evs[i]
				if e.Kind != w.Kind || e.Attention != w.Attention || e.Tool != w.Tool || e.Text != w.Text || e.Reason != w.Reason ||
					e.Sub != w.Sub || (w.Session != "" && e.Session != w.Session) ||
					(!w.T.IsZero() && !e.T.Equal(w.T.Time)) {
					t.Errorf("got %s\nwant %s", event.Marshal(&e), event.Marshal(&w))
				}
			}
		})
	}
}

func TestMapHookErrors(t *testing.T) {
	for in, want := range map[string]string{
		`not json`:                        "hook payload",
		`{"sessionId":"s"}`:               "no hook event named",
		`{"toolName":"bash"}`:             "preToolUse without \"sessionId\"",
		`{"sessionId":"s","toolName":"x"`: "hook payload",
	} {
		_, err := Mapper{}.MapHook([]byte(in), hcAt(1796124253760, ""))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}

// FuzzMapHook: no payload makes the mapping panic or return an invalid
// event.
func FuzzMapHook(f *testing.F) {
	for _, l := range readRecorded(f) {
		f.Add(l.hook, l.payload)
	}
	f.Add("", []byte(`{"sessionId":"s","notification_type":"permission_prompt","message":"Run command: "}`))
	f.Fuzz(func(t *testing.T, hook string, raw []byte) {
		evs, err := Mapper{}.MapHook(raw, hcAt(1796124253760, hook))
		if err != nil {
			return
		}
		for _, e := range evs {
			if err := e.Validate(); err != nil {
				t.Fatal(err)
			}
			var back event.Event
			if err := event.Decode(event.AppendJSON(nil, &e), &back); err != nil {
				t.Fatalf("%v: %s", err, event.Marshal(&e))
			}
		}
	})
}
