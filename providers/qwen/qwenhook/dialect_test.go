package qwenhook

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// TestRecordedHooks: every payload Qwen Code 0.24.4 sent in one session
// (testdata/hooks.ndjson, recorded in tmux: a turn, an approved command, a
// denied one, a question answered, a plan, /quit) maps to what it means.
func TestRecordedHooks(t *testing.T) {
	data, err := os.ReadFile("testdata/hooks.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"SessionStart":                        "session.start",
		"UserPromptSubmit":                    "turn.start",
		"PermissionRequest:run_shell_command": "wait:permission",
		"PermissionRequest:ask_user_question": "wait:question",
		"PermissionRequest:exit_plan_mode":    "wait:plan",
		"Notification:run_shell_command":      "wait:permission",
		"Notification:ask_user_question":      "wait:question",
		"Notification:exit_plan_mode":         "wait:plan",
		"Notification:":                       "interrupt::idle",
		"PreToolUse":                          "tool.start",
		"PostToolUse":                         "tool.end",
		"Stop":                                "turn.end meter:window",
		"SessionEnd":                          "session.end::prompt_input_exit",
	}
	hc := provider.HookContext{Now: time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC), PID: 1}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		evs, err := Dialect().MapHook(sc.Bytes(), hc)
		if err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		var got []string
		key := ""
		for _, e := range evs {
			if e.Agent != ID || e.Session == "" || e.Transcript == "" {
				t.Errorf("event %s", event.Marshal(&e))
			}
			s := e.Kind
			if e.Kind == event.Meter && e.Context != nil && e.Context.Size == 200000 {
				s += ":window"
			}
			if e.Attention != "" || e.Reason != "" {
				s += ":" + e.Attention
			}
			if e.Reason != "" {
				s += ":" + e.Reason
			}
			got = append(got, s)
		}
		name := hookName(sc.Bytes())
		key = name
		if name == "PermissionRequest" || name == "Notification" {
			key += ":" + toolOf(evs)
		}
		w, ok := want[key]
		if !ok {
			t.Errorf("%s: no expectation (events %v)", key, got)
			continue
		}
		seen[key] = true
		if g := strings.Join(got, " "); g != w {
			t.Errorf("%s: %s, want %s", key, g, w)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no %s recorded", k)
		}
	}
}

func hookName(raw []byte) string {
	const k = `"hook_event_name":"`
	i := bytes.Index(raw, []byte(k))
	if i < 0 {
		return ""
	}
	rest := raw[i+len(k):]
	return string(rest[:bytes.IndexByte(rest, '"')])
}

func toolOf(evs []event.Event) string {
	for _, e := range evs {
		if e.Kind == event.Wait {
			return e.Tool
		}
	}
	return ""
}
