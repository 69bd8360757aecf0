package crushhook

import (
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var hc = provider.HookContext{Now: time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC), PID: 812, TTY: "/dev/pts/4", Pane: "%2", Cwd: "/fallback", Host: "box"}

// Payloads in the shape Crush's source builds them (hooks.BuildPayload:
// event, session_id, cwd, tool_name, tool_input as an object): written
// from its code, not recorded — no Crush ran here.
func TestMapHook(t *testing.T) {
	for _, tc := range []struct{ name, payload, tool, text string }{
		{"bash", `{"event":"PreToolUse","session_id":"3c1e0d6a-5b1f-4f61-9d0e-1f0a6a2b9c11","cwd":"/w","tool_name":"bash","tool_input":{"command":"make test\n  && make lint","description":"Run the tests"}}`,
			"bash", "make test\n  && make lint"},
		{"edit", `{"event":"PreToolUse","session_id":"3c1e0d6a-5b1f-4f61-9d0e-1f0a6a2b9c11","cwd":"/w","tool_name":"edit","tool_input":{"file_path":"/w/a.go","old_string":"x","new_string":"y"}}`,
			"edit", "/w/a.go"},
		{"Claude's name", `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"view","tool_input":{"file_path":"/w/b"}}`, "view", "/w/b"},
		{"input not an object", `{"event":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"bash","tool_input":{}}`, "bash", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Mapper{}.MapHook([]byte(tc.payload), hc)
			if err != nil || len(evs) != 1 {
				t.Fatalf("%d events, %v", len(evs), err)
			}
			e := evs[0]
			if e.Kind != event.ToolStart || e.Agent != ID || e.Tool != tc.tool || e.Text != tc.text || e.Cwd != "/w" ||
				e.Src != event.SrcHook || e.PID != hc.PID || e.Pane != hc.Pane || e.Session == "" {
				t.Errorf("got %s", event.Marshal(&e))
			}
		})
	}
	for _, bad := range []string{`{"session_id":"s"}`, `{"event":"PreToolUse"}`, `{"event":`} {
		if _, err := (Mapper{}).MapHook([]byte(bad), hc); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func FuzzMapHook(f *testing.F) {
	f.Add([]byte(`{"event":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"bash","tool_input":{"command":"ls"}}`))
	f.Add([]byte(`{"event":"PreToolUse","session_id":"s","tool_input":[1,2]}`))
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
