package agyhook

import (
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var hc = provider.HookContext{Now: time.Date(2026, 11, 30, 9, 2, 11, 0, time.UTC), PID: 77, Pane: "%3", Cwd: "/w", Host: "box"}

func TestMapHook(t *testing.T) {
	const conv = `"conversationId":"c1","transcriptPath":"/h/.gemini/antigravity-cli/brain/c1/.system_generated/logs/transcript.jsonl"`
	for _, tc := range []struct {
		name, payload, kind, reason, text string
	}{
		{"PreInvocation", `{` + conv + `,"invocationNum":0}`, event.TurnStart, "", ""},
		{"PostInvocation", `{` + conv + `,"invocationNum":3}`, event.TurnStart, "", ""},
		{"Stop", `{` + conv + `,"fullyIdle":true,"terminationReason":"completed"}`, event.TurnEnd, "", ""},
		{"Stop after an error", `{` + conv + `,"fullyIdle":true,"terminationReason":"error","error":"quota exceeded"}`, event.TurnFail, "error", "quota exceeded"},
		{"Stop at the step limit", `{` + conv + `,"fullyIdle":true,"terminationReason":"max_steps_exceeded"}`, event.TurnFail, "max_steps_exceeded", ""},
		{"Stop with an error and no reason", `{` + conv + `,"fullyIdle":true,"error":"boom"}`, event.TurnFail, "error", "boom"},
		{"Stop cancelled", `{` + conv + `,"fullyIdle":true,"terminationReason":"user_cancelled"}`, event.Interrupt, "user", ""},
		{"Stop with a null error", `{` + conv + `,"fullyIdle":false,"error":null}`, event.TurnEnd, "", ""},
	} {
		evs, err := Mapper{}.MapHook([]byte(tc.payload), hc)
		if err != nil || len(evs) != 1 {
			t.Fatalf("%s: %v %v", tc.name, evs, err)
		}
		e := evs[0]
		if e.Kind != tc.kind || e.Reason != tc.reason || e.Text != tc.text || e.Session != "c1" || e.Agent != "antigravity" ||
			e.Src != event.SrcHook || e.PID != 77 || e.Cwd != "/w" || e.Transcript == "" || e.Validate() != nil {
			t.Errorf("%s: %+v", tc.name, e)
		}
	}
	if evs, err := (Mapper{}).MapHook([]byte(`{"conversationId":"c1","toolName":"x"}`), hc); err != nil || len(evs) != 0 {
		t.Errorf("a shape ag does not map: %v %v", evs, err)
	}
	for _, bad := range []string{``, `{`, `{"invocationNum":1}`} {
		if _, err := (Mapper{}).MapHook([]byte(bad), hc); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestAnswer(t *testing.T) {
	for _, p := range []string{"", "{", `{"conversationId":"c","fullyIdle":true}`} {
		if got := string(Mapper{}.Answer([]byte(p))); got != "{}" {
			t.Errorf("Answer(%q) = %q", p, got)
		}
	}
	for _, h := range Hooks {
		if h == "PreToolUse" {
			t.Error("PreToolUse: {} denies the tool call there")
		}
	}
}

func FuzzMapHook(f *testing.F) {
	f.Add([]byte(`{"conversationId":"c1","invocationNum":0}`))
	f.Add([]byte(`{"conversationId":"c1","fullyIdle":true,"terminationReason":"error","error":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := Mapper{}.MapHook(b, hc)
		if err != nil {
			return
		}
		for i := range evs {
			if err := evs[i].Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
