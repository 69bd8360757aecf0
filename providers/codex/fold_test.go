package codex

import (
	"fmt"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/fold"
	"github.com/agwatch/ag/providers/provider"
)

// The fold rules for Codex, run through the real fold with events
// from this package's own mappers: no hook reports a resolved approval, so
// the rollout's function_call_output newer than the wait ends it (250 ms
// slack behind the PermissionRequest hook); an older one does not;
// turn_aborted returns to idle; Stop is done.
func TestFoldCodexStream(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 2, 16, 40, 0, time.UTC)
	const sess = "01a22a3d-7489-75e1-a18e-a8dc8b3849ac"
	path := "/h/.codex/sessions/2026/11/30/rollout-2026-11-30T02-16-40-" + sess + ".jsonl"
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ts := func(ms int) string { return at(ms).Format(event.Layout) }
	turn := "t1"
	hook := func(ms int, body string) []event.Event {
		evs, err := New().MapHook([]byte(`{"session_id":"`+sess+`","turn_id":"`+turn+`","cwd":"/p",`+body+`}`),
			provider.HookContext{Now: at(ms), Pane: "%1"})
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	r := NewRollout(path)
	roll := func(ms int, typ, payload string) []event.Event {
		var out []event.Event
		err := r.Parse([]byte(fmt.Sprintf(`{"timestamp":%q,"type":%q,"payload":%s}`, ts(ms), typ, payload)),
			func(e *event.Event) { out = append(out, *e) })
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	f := fold.New(fold.Config{})
	step := func(name string, evs []event.Event, status, attention string) {
		t.Helper()
		for i := range evs {
			f.Apply(&evs[i])
		}
		st := f.States()
		if len(st) != 1 {
			t.Fatalf("%s: %d states", name, len(st))
		}
		if st[0].Status != status || st[0].Attention != attention {
			t.Errorf("%s: status %q/%q; want %q/%q", name, st[0].Status, st[0].Attention, status, attention)
		}
	}
	roll(0, "session_meta", `{"id":"`+sess+`","cwd":"/p","thread_source":"user"}`)
	step("SessionStart with the first prompt", hook(100, `"hook_event_name":"SessionStart","source":"startup"`), event.StatusIdle, "")
	step("prompt", hook(110, `"hook_event_name":"UserPromptSubmit","prompt":"go"`), event.StatusWorking, "")
	step("rollout turn start", append(roll(120, "event_msg", `{"type":"task_started","turn_id":"t1"}`),
		roll(130, "event_msg", `{"type":"user_message","message":"go"}`)...), event.StatusWorking, "")
	// Sandbox-fail-then-escalate: the ungated attempt's output is flushed
	// 300 ms before the permission request; it must not end the wait.
	step("first attempt", roll(500, "response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"rm x\"}","call_id":"c1"}`), event.StatusWorking, "")
	old := roll(700, "response_item", `{"type":"function_call_output","call_id":"c1","output":"denied by sandbox"}`)
	step("permission", hook(1000, `"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm x"}`), event.StatusWaiting, event.AttnPermission)
	step("older output does not end the wait", old, event.StatusWaiting, event.AttnPermission)
	// Codex flushes the gated call's function_call line while its prompt
	// is still up: a rollout tool.start is no evidence the wait ended.
	retry := roll(1010, "response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"rm x\"}","call_id":"c2"}`)
	for i := range retry {
		f.Apply(&retry[i])
	}
	if st := f.States()[0]; st.Status != event.StatusWaiting {
		t.Fatalf("a rollout tool.start during a permission wait set %s; want waiting", st.Status)
	}
	step("approved: the output is the only evidence", roll(4000, "response_item", `{"type":"function_call_output","call_id":"c2","output":"ok"}`), event.StatusWorking, "")
	step("Stop", hook(5000, `"hook_event_name":"Stop","last_assistant_message":"done"`), event.StatusDone, "")
	turn = "t2"
	step("next prompt", hook(9000, `"hook_event_name":"UserPromptSubmit","prompt":"again"`), event.StatusWorking, "")
	step("permission again", hook(9500, `"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm y"}`), event.StatusWaiting, event.AttnPermission)
	// 0.171 writes the refused call's output ~20 ms before turn_aborted:
	// straight to idle, never back through working.
	step("denied with Escape: the output says so", roll(11980, "response_item", `{"type":"function_call_output","call_id":"c3","output":"Wall time: 0.9 seconds\naborted by user"}`), event.StatusIdle, "")
	step("denied with Escape: turn_aborted", roll(12000, "event_msg", `{"type":"turn_aborted","turn_id":"t2","reason":"interrupted"}`), event.StatusIdle, "")
}
