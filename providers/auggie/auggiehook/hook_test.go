package auggiehook

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var hc = provider.HookContext{Now: time.Date(2026, 12, 4, 18, 4, 16, 0, time.UTC), PID: 4021, TTY: "/dev/pts/5", Pane: "%3", Cwd: "/fallback", Host: "box"}

// TestMapHookGolden: the payloads the real Auggie 0.36.0 sent a recording
// hook against the fake backend, mapped: start, a prompt whose command
// was approved, one denied (the turn goes on: refused, then Stop),
// Escape at work (interrupted), an API error (no Stop at all), /exit.
func TestMapHookGolden(t *testing.T) {
	in, golden := "testdata/auggie-0.36.0-hooks.jsonl", "testdata/auggie-0.36.0-hooks.golden"
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		evs, err := Mapper{}.MapHook(sc.Bytes(), hc)
		if err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		for i := range evs {
			got = event.AppendJSON(got, &evs[i])
		}
	}
	if *update {
		os.WriteFile(golden, got, 0o644)
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("mapped events differ from %s (go test -update):\n%s", golden, got)
	}
}

func TestMapHook(t *testing.T) {
	const s = `"conversation_id":"c1","workspace_roots":["/w","/x"]`
	for _, tc := range []struct {
		name, payload                 string
		kind, tool, text, reason, cwd string
	}{
		{"start", `{"hook_event_name":"SessionStart",` + s + `}`, event.SessionStart, "", "", "", "/w"},
		{"prompt", `{"hook_event_name":"PromptSubmit",` + s + `,"user_prompt":"fix it"}`, event.TurnStart, "", "fix it", "", "/w"},
		{"pre", `{"hook_event_name":"PreToolUse",` + s + `,"tool_name":"launch-process","tool_input":{"command":"make test","wait":true},"tool_output":"[undefined]","tool_error":null}`,
			event.ToolStart, "launch-process", "make test", "", "/w"},
		{"pre remove", `{"hook_event_name":"PreToolUse",` + s + `,"tool_name":"remove-files","tool_input":{"file_paths":["a.txt","b.txt"]}}`,
			event.ToolStart, "remove-files", `{"file_paths":["a.txt","b.txt"]}`, "", "/w"},
		{"post", `{"hook_event_name":"PostToolUse",` + s + `,"tool_name":"launch-process","tool_output":"ok","tool_error":null}`, event.ToolEnd, "launch-process", "", "", "/w"},
		{"refused", `{"hook_event_name":"PostToolUse",` + s + `,"tool_name":"launch-process","tool_error":"Tool execution denied by user: launch-process"}`,
			event.ToolEnd, "launch-process", "", ReasonRefused, "/w"},
		{"failed", `{"hook_event_name":"PostToolUse",` + s + `,"tool_name":"view","tool_error":"File not found"}`, event.ToolEnd, "view", "", "File not found", "/w"},
		{"stop", `{"hook_event_name":"Stop",` + s + `,"agent_stop_cause":"end_turn","_exchange":{"exchange":{"request_message":"hi","response_text":"All done."}}}`,
			event.TurnEnd, "", "All done.", "", "/w"},
		{"max", `{"hook_event_name":"Stop",` + s + `,"agent_stop_cause":"max_iterations"}`, event.TurnEnd, "", "", "max_iterations", "/w"},
		{"escape", `{"hook_event_name":"Stop",` + s + `,"agent_stop_cause":"interrupted"}`, event.Interrupt, "", "", "interrupted", "/w"},
		{"error", `{"hook_event_name":"Stop",` + s + `,"agent_stop_cause":"error"}`, event.TurnFail, "", "", "error", "/w"},
		{"end", `{"hook_event_name":"SessionEnd","conversation_id":"c1","workspace_roots":[]}`, event.SessionEnd, "", "", "", "/fallback"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Mapper{}.MapHook([]byte(tc.payload), hc)
			if err != nil || len(evs) != 1 {
				t.Fatalf("%d events, %v", len(evs), err)
			}
			e := evs[0]
			if e.Kind != tc.kind || e.Tool != tc.tool || e.Text != tc.text || e.Reason != tc.reason || e.Cwd != tc.cwd ||
				e.Session != "c1" || e.Agent != ID || e.Src != event.SrcHook || e.PID != hc.PID || e.Pane != hc.Pane || e.ID == "" {
				t.Errorf("got %s", event.Marshal(&e))
			}
		})
	}
	for _, bad := range []string{`{"conversation_id":"c1"}`, `{"hook_event_name":"Stop"}`, `not json`} {
		if _, err := (Mapper{}).MapHook([]byte(bad), hc); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if evs, err := (Mapper{}).MapHook([]byte(`{"hook_event_name":"Notification","conversation_id":"c1"}`), hc); err != nil || len(evs) != 0 {
		t.Errorf("Notification: %v %v", evs, err)
	}
}

func FuzzMapHook(f *testing.F) {
	data, _ := os.ReadFile("testdata/auggie-0.36.0-hooks.jsonl")
	for _, l := range bytes.Split(data, []byte("\n")) {
		f.Add(l)
	}
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
