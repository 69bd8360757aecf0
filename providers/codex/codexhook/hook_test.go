package codexhook

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var hc = provider.HookContext{Now: time.Date(2026, 11, 30, 2, 16, 42, 0, time.UTC), PID: 4242, TTY: "/dev/pts/3", Pane: "%7", Cwd: "/fallback", Host: "box"}

func TestMapHook(t *testing.T) {
	const common = `"session_id":"s1","turn_id":"t1","transcript_path":"/h/.codex/sessions/2026/11/30/rollout-x.jsonl","cwd":"/p","model":"m","permission_mode":"default"`
	for _, tc := range []struct {
		name, payload string
		want          event.Event // only the fields set here are compared
		none          bool
	}{
		{name: "SessionStart", payload: `{"session_id":"s1","transcript_path":"/r.jsonl","cwd":"/p","hook_event_name":"SessionStart","model":"fake-model","permission_mode":"default","source":"startup"}`,
			want: event.Event{Kind: event.SessionStart, Model: "fake-model", Text: "startup", Transcript: "/r.jsonl"}},
		{name: "UserPromptSubmit", payload: `{` + common + `,"hook_event_name":"UserPromptSubmit","prompt":"say hello"}`,
			want: event.Event{Kind: event.TurnStart, Run: "t1", Text: "say hello"}},
		{name: "PreToolUse", payload: `{` + common + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo marker > marker.txt"},"tool_use_id":"call_1"}`,
			want: event.Event{Kind: event.ToolStart, Run: "t1", Tool: "Bash", ToolID: "call_1", Text: "echo marker > marker.txt"}},
		{name: "PermissionRequest is a permission wait", payload: `{` + common + `,"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -- NOTE.txt","description":"Delete?"}}`,
			want: event.Event{Kind: event.Wait, Run: "t1", Attention: event.AttnPermission, Tool: "Bash", Text: "rm -- NOTE.txt"}},
		{name: "PermissionRequest for apply_patch", payload: `{` + common + `,"hook_event_name":"PermissionRequest","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch"}}`,
			want: event.Event{Kind: event.Wait, Attention: event.AttnPermission, Tool: "apply_patch", Text: "*** Begin Patch"}},
		{name: "request_user_input is a question", payload: `{` + common + `,"hook_event_name":"PermissionRequest","tool_name":"request_user_input","tool_input":{"questions":[{"id":"q","question":"Which database?","options":[]}]}}`,
			want: event.Event{Kind: event.Wait, Attention: event.AttnQuestion, Tool: "request_user_input", Text: "Which database?"}},
		{name: "AskUserQuestion is a question", payload: `{` + common + `,"hook_event_name":"PermissionRequest","tool_name":"AskUserQuestion","tool_input":{"question":"Go on?"}}`,
			want: event.Event{Kind: event.Wait, Attention: event.AttnQuestion, Tool: "AskUserQuestion", Text: "Go on?"}},
		{name: "question tool without a question keeps the summary", payload: `{` + common + `,"hook_event_name":"PermissionRequest","tool_name":"question","tool_input":{"query":"x"}}`,
			want: event.Event{Kind: event.Wait, Attention: event.AttnQuestion, Tool: "question", Text: "x"}},
		{name: "PostToolUse", payload: `{` + common + `,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"","tool_use_id":"call_1"}`,
			want: event.Event{Kind: event.ToolEnd, Tool: "Bash", ToolID: "call_1"}},
		{name: "Stop", payload: `{` + common + `,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}`,
			want: event.Event{Kind: event.TurnEnd, Run: "t1", Text: "done"}},
		{name: "StopFailure", payload: `{` + common + `,"hook_event_name":"StopFailure","error":"rate_limit"}`,
			want: event.Event{Kind: event.TurnFail, Reason: "rate_limit"}},
		{name: "StopFailure without error", payload: `{` + common + `,"hook_event_name":"StopFailure"}`,
			want: event.Event{Kind: event.TurnFail, Reason: "unknown"}},
		{name: "SubagentStart", payload: `{` + common + `,"hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"explorer"}`,
			want: event.Event{Kind: event.ToolStart, Tool: "explorer", ToolID: "a1", Sub: "a1"}},
		{name: "SubagentStop", payload: `{` + common + `,"hook_event_name":"SubagentStop","agent_id":"a1"}`,
			want: event.Event{Kind: event.ToolEnd, Tool: "agent", ToolID: "a1", Sub: "a1"}},
		{name: "tool inside a sub-agent", payload: `{` + common + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"agent_id":"a1"}`,
			want: event.Event{Kind: event.ToolStart, Tool: "Bash", Sub: "a1", Text: "ls"}},
		{name: "PreCompact", payload: `{` + common + `,"hook_event_name":"PreCompact","trigger":"auto"}`,
			want: event.Event{Kind: event.ToolStart, Tool: "compact", Text: "auto"}},
		{name: "SessionEnd", payload: `{"session_id":"s1","transcript_path":"/r","hook_event_name":"SessionEnd","reason":"other"}`,
			want: event.Event{Kind: event.SessionEnd, Reason: "other", Cwd: "/fallback"}},
		{name: "unknown hook", payload: `{"session_id":"s1","hook_event_name":"Notification"}`, none: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Mapper{}.MapHook([]byte(tc.payload), hc)
			if err != nil {
				t.Fatal(err)
			}
			if tc.none {
				if len(evs) != 0 {
					t.Fatalf("got %d events, want none", len(evs))
				}
				return
			}
			if len(evs) != 1 {
				t.Fatalf("got %d events", len(evs))
			}
			e := evs[0]
			if err := e.Validate(); err != nil {
				t.Fatal(err)
			}
			if e.Agent != ID || e.Src != event.SrcHook || e.Session != "s1" || e.ID == "" || !e.T.Equal(hc.Now) ||
				e.PID != 4242 || e.TTY != "/dev/pts/3" || e.Pane != "%7" || e.Host != "box" {
				t.Errorf("envelope: %s", event.Marshal(&e))
			}
			w := tc.want
			check := func(name, got, want string) {
				if want != "" && got != want {
					t.Errorf("%s = %q; want %q", name, got, want)
				}
			}
			check("kind", e.Kind, w.Kind)
			check("run", e.Run, w.Run)
			check("tool", e.Tool, w.Tool)
			check("tool_id", e.ToolID, w.ToolID)
			check("attention", e.Attention, w.Attention)
			check("text", e.Text, w.Text)
			check("reason", e.Reason, w.Reason)
			check("model", e.Model, w.Model)
			check("sub", e.Sub, w.Sub)
			check("cwd", e.Cwd, w.Cwd)
			check("transcript", e.Transcript, w.Transcript)
		})
	}
}

// Codex 0.171 runs hooks in its shared app-server (no tty), whose pid and
// $TMUX_PANE belong to no particular session: they are dropped.
func TestMapHookUnderSharedServer(t *testing.T) {
	daemon := hc
	daemon.TTY, daemon.PID, daemon.Pane = "", 9532, "%0"
	evs, err := Mapper{}.MapHook([]byte(`{"session_id":"s","turn_id":"t","cwd":"/p","hook_event_name":"UserPromptSubmit","prompt":"x"}`), daemon)
	if err != nil || len(evs) != 1 {
		t.Fatal(evs, err)
	}
	if e := evs[0]; e.PID != 0 || e.Pane != "" || e.TTY != "" || e.Host != "box" || e.Cwd != "/p" {
		t.Errorf("event %s", event.Marshal(&e))
	}
}

func TestMapHookErrors(t *testing.T) {
	for in, want := range map[string]string{
		`not json`:                                   "hook payload",
		`{"session_id":"s"}`:                         "no \"hook_event_name\"",
		`{"hook_event_name":"Stop"}`:                 "Stop without \"session_id\"",
		`{"session_id":"s","hook_event_name":"Stop"`: "hook payload",
		`{"session_id":"s"} trailing`:                "hook payload",
	} {
		_, err := Mapper{}.MapHook([]byte(in), hc)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("MapHook(%q) error = %v; want %q", in, err, want)
		}
	}
	// Fields of a surprising type are read as their JSON text: a hook
	// named 1 is no hook ag maps, not an error.
	if evs, err := (Mapper{}).MapHook([]byte(`{"hook_event_name":1,"session_id":2}`), hc); err != nil || len(evs) != 0 {
		t.Errorf("numeric fields: %v, %d events", err, len(evs))
	}
}

func TestMapHookIDs(t *testing.T) {
	p := []byte(`{"session_id":"s1","turn_id":"t1","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	a, _ := Mapper{}.MapHook(p, hc)
	b, _ := Mapper{}.MapHook(p, hc)
	later := hc
	later.Now = hc.Now.Add(3 * time.Second)
	c, _ := Mapper{}.MapHook(p, later)
	if a[0].ID != b[0].ID {
		t.Error("same payload, same second: ids differ")
	}
	if a[0].ID == c[0].ID {
		t.Error("same payload asked again later: same id")
	}
}

func TestToolSummaryClamps(t *testing.T) {
	long := strings.Repeat("é", 3000)
	s := ToolSummary([]byte(`{"command":"` + long + `"}`))
	if len(s) > textMax+len("…") || !strings.HasSuffix(s, "…") {
		t.Errorf("not clamped: %d bytes", len(s))
	}
	if got := ToolSummary([]byte(`{"command":["bash","-lc","ls -la"]}`)); got != "bash -lc ls -la" {
		t.Errorf("argv form: %q", got)
	}
	if got := ToolSummary([]byte(`"raw"`)); got != "raw" {
		t.Errorf("string input: %q", got)
	}
}

func FuzzMapHook(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","turn_id":"t","hook_event_name":"PermissionRequest","tool_name":"request_user_input","tool_input":{"questions":[{"question":"q"}]}}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_input":"x"}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"Stop"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := Mapper{}.MapHook(b, hc)
		if err != nil {
			return
		}
		for i := range evs {
			if err := evs[i].Validate(); err != nil {
				t.Fatal(err)
			}
			var back event.Event
			line := event.Marshal(&evs[i])
			if err := event.Decode(line[:len(line)-1], &back); err != nil {
				t.Fatalf("round trip: %v", err)
			}
		}
	})
}
