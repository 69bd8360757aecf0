package droidhook

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

// TestRecordedHooks: the payloads droid 0.225.2 sent in one session
// (testdata/hooks.ndjson, recorded in tmux: an approved command, a denied
// one, an Escape while it worked, /quit with its two SessionEnds) tell that
// session.
func TestRecordedHooks(t *testing.T) {
	data, err := os.ReadFile("testdata/hooks.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	hc := provider.HookContext{Now: time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC), PID: 1}
	var got []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		evs, err := Dialect().MapHook(sc.Bytes(), hc)
		if err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		for _, e := range evs {
			if e.Agent != ID || e.Session == "" || e.Transcript == "" {
				t.Errorf("event %s", event.Marshal(&e))
			}
			s := e.Kind
			if e.Attention != "" {
				s += ":" + e.Attention
			}
			if e.Kind == event.ToolStart {
				s += ":" + e.Text
			}
			if e.Reason != "" {
				s += ":" + e.Reason
			}
			got = append(got, s)
		}
	}
	want := strings.Split(`turn.start
tool.start:echo marker > marker.txt
wait:permission
tool.end
turn.end
turn.start
tool.start:echo denied > denied.txt
wait:permission
turn.end
turn.start
interrupt:idle
session.end:other
session.end:other`, "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAsksAtPreTool: AskUser and ExitSpecMode always ask, and only their
// PreToolUse says so (the Notification after it names no tool): that
// PreToolUse is the question's or the plan's wait, with its text. (The
// payloads' shape as droid 0.225.2 sent them in tmux.)
func TestAsksAtPreTool(t *testing.T) {
	hc := provider.HookContext{Now: time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)}
	for _, tc := range []struct{ payload, attn, text string }{
		{`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","permission_mode":"off","hook_event_name":"PreToolUse","tool_name":"AskUser","tool_input":{"questionnaire":"1. [question] Which colour\n[topic] Colour\n[option] Blue\n[option] Green"}}`,
			event.AttnQuestion, "Which colour"},
		{`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","permission_mode":"spec","hook_event_name":"PreToolUse","tool_name":"ExitSpecMode","tool_input":{"title":"Cache","plan":"1. Add a cache\n2. Test it"}}`,
			event.AttnPlan, "1. Add a cache\n2. Test it"},
	} {
		evs, err := Dialect().MapHook([]byte(tc.payload), hc)
		if err != nil || len(evs) != 2 || evs[0].Kind != event.ToolStart || evs[1].Kind != event.Wait {
			t.Fatalf("%v %+v", err, evs)
		}
		if w := evs[1]; w.Attention != tc.attn || w.Text != tc.text || w.Tool != evs[0].Tool ||
			tc.attn == event.AttnQuestion && strings.Join(w.Options, "|") != "Blue|Green" {
			t.Errorf("wait %s", event.Marshal(&w))
		}
	}
	// A question's Notification is a question too.
	evs, _ := Dialect().MapHook([]byte(`{"session_id":"s","hook_event_name":"Notification","message":"Factory CLI is asking the user 1 question(s)","notification_type":"elicitation_dialog"}`), hc)
	if len(evs) != 1 || evs[0].Attention != event.AttnQuestion {
		t.Errorf("elicitation_dialog: %+v", evs)
	}
}
