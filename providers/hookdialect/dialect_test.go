package hookdialect

import (
	"cmp"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// example is testdata/example.toml as Go.
var example = Dialect{
	Agent:     "example",
	Processes: []string{"node", "example"},
	Events:    map[string]string{"PromptSubmit": HookUserPromptSubmit, "BeforeTool": HookPreToolUse},
	Fields: map[string]string{"conversation_id": "session_id", "workspace_roots": "cwd", "tool_error": "error",
		"agent_stop_cause": "stop_cause", "_exchange.exchange.response_text": "last_assistant_message"},
	Refusal:             "Tool execution denied by user",
	StopCauses:          map[string]string{"end_turn": StopEnd, "interrupted": StopInterrupt, "error": StopFail},
	Notifications:       map[string]string{"permission_prompt": NoticePermission, "idle_prompt": NoticeIdle},
	QuestionTools:       []string{"ask_user"},
	PlanTools:           []string{"exit_plan"},
	ShellTools:          []string{"shell"},
	PreToolBeforeDialog: true,
	Install: Install{
		Dir: ".example", ConfigDirEnv: "EXAMPLE_HOME", File: "settings.json",
		Timeout: 10, TimeoutUnit: Milliseconds, Comments: true,
		Entries: []Entry{
			{Event: "PromptSubmit"}, {Event: "BeforeTool", Matcher: "*"},
			{Event: HookNotification, Matcher: "permission_prompt|idle_prompt"}, {Event: HookStop},
		},
	},
}

// TestTOML: every field but Model is data a TOML agent definition fills.
func TestTOML(t *testing.T) {
	var d Dialect
	data, err := os.ReadFile("testdata/example.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := toml.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d, example) {
		t.Errorf("example.toml:\n got %+v\nwant %+v", d, example)
	}
	if got := d.Install.TimeoutValue(); got != 10000 {
		t.Errorf("timeout %d ms, want 10000", got)
	}
}

// TestDialectMap: the dialect's names, fields and notification types
// become Claude's before the mapping, and an unknown one maps to nothing.
func TestDialectMap(t *testing.T) {
	hc := provider.HookContext{Now: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC), PID: 7, Cwd: "/w"}
	for _, tc := range []struct {
		name, payload string
		want          []event.Event // kind and the fields that matter
		cwd           string        // "" for hc's
	}{
		{"renamed event and field", `{"conversation_id":"c1","hook_event_name":"PromptSubmit","prompt":"hi"}`,
			[]event.Event{{Kind: event.TurnStart, Session: "c1", Text: "hi"}}, ""},
		{"shell summary", `{"conversation_id":"c1","hook_event_name":"BeforeTool","tool_name":"shell","tool_input":{"command":"make\ntest"}}`,
			[]event.Event{{Kind: event.ToolStart, Session: "c1", Tool: "shell", Text: "make\ntest"}}, ""},
		{"Claude's own name", `{"conversation_id":"c1","hook_event_name":"Stop"}`,
			[]event.Event{{Kind: event.TurnEnd, Session: "c1"}}, ""},
		{"question tool", `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"ask_user","tool_input":{"questions":[{"question":"Which?"}]}}`,
			[]event.Event{{Kind: event.Wait, Session: "s", Attention: event.AttnQuestion, Tool: "ask_user", Text: "Which?"}}, ""},
		{"plan tool", `{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"exit_plan","tool_input":{"plan":"1. a"}}`,
			[]event.Event{{Kind: event.Wait, Session: "s", Attention: event.AttnPlan, Tool: "exit_plan", Text: "1. a"}}, ""},
		{"permission notification", `{"session_id":"s","hook_event_name":"Notification","notification_type":"permission_prompt","message":"needs you"}`,
			[]event.Event{{Kind: event.Wait, Session: "s", Attention: event.AttnPermission, Text: "needs you"}}, ""},
		{"idle notification", `{"session_id":"s","hook_event_name":"Notification","notification_type":"idle_prompt"}`,
			[]event.Event{{Kind: event.Interrupt, Session: "s", Reason: event.ReasonIdle}}, ""},
		{"unlisted notification", `{"session_id":"s","hook_event_name":"Notification","notification_type":"auth_success"}`, nil, ""},
		{"an event Claude does not have", `{"session_id":"s","hook_event_name":"AfterAgent"}`, nil, ""},
		{"model kept as sent", `{"session_id":"s","hook_event_name":"SessionStart","model":"m[1m]"}`,
			[]event.Event{{Kind: event.SessionStart, Session: "s", Model: "m[1m]"}}, ""},
		// Auggie's shapes: the first workspace root as the folder, a
		// refusal in a PostToolUse that lets the turn go on, a Stop's
		// cause, the answer inside the exchange a Stop carries.
		{"an array as the folder", `{"conversation_id":"c1","hook_event_name":"SessionStart","workspace_roots":["/p","/q"]}`,
			[]event.Event{{Kind: event.SessionStart, Session: "c1"}}, "/p"},
		{"a refusal", `{"conversation_id":"c1","hook_event_name":"PostToolUse","tool_name":"shell","tool_error":"Tool execution denied by user: shell"}`,
			[]event.Event{{Kind: event.ToolEnd, Session: "c1", Tool: "shell", Reason: ReasonRefused}}, ""},
		{"a tool's error", `{"conversation_id":"c1","hook_event_name":"PostToolUse","tool_name":"view","tool_error":"no such file\nat x"}`,
			[]event.Event{{Kind: event.ToolEnd, Session: "c1", Tool: "view", Reason: "no such file …"}}, ""},
		{"no error", `{"conversation_id":"c1","hook_event_name":"PostToolUse","tool_name":"view","tool_error":null}`,
			[]event.Event{{Kind: event.ToolEnd, Session: "c1", Tool: "view"}}, ""},
		{"the answer in the exchange", `{"conversation_id":"c1","hook_event_name":"Stop","agent_stop_cause":"end_turn","_exchange":{"exchange":{"request_message":"hi","response_text":"All done.","response_nodes":[{"type":0,"content":"x"}]},"changedFiles":[]}}`,
			[]event.Event{{Kind: event.TurnEnd, Session: "c1", Text: "All done."}}, ""},
		{"a cause not listed", `{"conversation_id":"c1","hook_event_name":"Stop","agent_stop_cause":"max_iterations"}`,
			[]event.Event{{Kind: event.TurnEnd, Session: "c1", Reason: "max_iterations"}}, ""},
		{"interrupted", `{"conversation_id":"c1","hook_event_name":"Stop","agent_stop_cause":"interrupted"}`,
			[]event.Event{{Kind: event.Interrupt, Session: "c1", Reason: "interrupted"}}, ""},
		{"failed", `{"conversation_id":"c1","hook_event_name":"Stop","agent_stop_cause":"error"}`,
			[]event.Event{{Kind: event.TurnFail, Session: "c1", Reason: "error"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := example.MapHook([]byte(tc.payload), hc)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d events, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Agent != "example" || g.Src != event.SrcHook || g.PID != 7 || g.Cwd != cmp.Or(tc.cwd, "/w") {
					t.Errorf("common fields: %+v", g)
				}
				if g.Kind != w.Kind || g.Session != w.Session || g.Attention != w.Attention || g.Tool != w.Tool || g.Text != w.Text || g.Model != w.Model || g.Reason != w.Reason || g.Context != nil {
					t.Errorf("got %+v\nwant %+v", g, w)
				}
			}
		})
	}
}
