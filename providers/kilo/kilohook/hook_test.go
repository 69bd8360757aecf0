package kilohook

import (
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/opencode/opencodehook"
	"github.com/agwatch/ag/providers/provider"
)

var hc = provider.HookContext{Now: time.Date(2026, 12, 4, 17, 54, 0, 0, time.UTC), PID: 4554, TTY: "/dev/pts/5", Pane: "%3", Cwd: "/w", Host: "box"}

// lines are what the plugin sent from Kilo 7.7.7 here: a prompt, a
// command's dialog (its description and command: Kilo's bash takes both),
// its rejection, a question, the plan agent's answer to "Ready to
// implement?" (no question.asked came before it), Escape at work.
const lines = `{"t":1796406836942,"pid":4554,"event":{"type":"chat.message","properties":{"sessionID":"ses_dbdc","messageID":"msg_1","agent":"code","model":{"providerID":"fake","modelID":"fake-model"},"text":"RUN: echo marker > marker.txt"}}}
{"t":1796406837960,"pid":4554,"event":{"type":"permission.asked","properties":{"id":"per_1","sessionID":"ses_dbdc","permission":"bash","patterns":["echo marker > marker.txt"],"metadata":{"command":"echo marker > marker.txt","description":"Run the requested command"},"always":["echo *"],"tool":{"messageID":"msg_2","callID":"call_fake000002"}}}}
{"t":1796406860148,"pid":4554,"event":{"type":"permission.replied","properties":{"sessionID":"ses_dbdc","requestID":"per_1","reply":"reject"}}}
{"t":1796406877912,"pid":4554,"event":{"type":"question.asked","properties":{"id":"que_1","sessionID":"ses_dbdc","questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Blue","description":"the sky"}]}],"tool":{"messageID":"msg_3","callID":"call_fake000006"}}}}
{"t":1796407210669,"pid":4554,"event":{"type":"question.replied","properties":{"sessionID":"ses_dbdc","requestID":"que_2","answers":[["Continue here"]]}}}
{"t":1796406925318,"pid":4554,"event":{"type":"session.error","properties":{"sessionID":"ses_dbdc","error":{"name":"MessageAbortedError","data":{"message":"Aborted"}}}}}
`

// TestMapHook: Kilo's lines are OpenCode's, under Kilo's id (and ids of
// their own: the same line from OpenCode is another event).
func TestMapHook(t *testing.T) {
	got, err := Mapper{}.MapHook([]byte(lines), hc)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ kind, attn, tool, text, reason string }{
		{event.TurnStart, "", "", "RUN: echo marker > marker.txt", ""},
		{event.Wait, event.AttnPermission, "bash", "echo marker > marker.txt", ""},
		{event.WaitEnd, "", "", "", "denied"},
		{event.Wait, event.AttnQuestion, "question", "Which colour?", ""},
		{event.WaitEnd, "", "", "", ""},
		{event.Interrupt, "", "", "Aborted", "MessageAbortedError"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	oc, _ := opencodehook.Mapper{}.MapHook([]byte(lines), hc)
	for i, w := range want {
		e := got[i]
		if e.Agent != ID || e.Session != "ses_dbdc" || e.Kind != w.kind || e.Attention != w.attn || e.Tool != w.tool || e.Text != w.text || e.Reason != w.reason || e.PID != 4554 {
			t.Errorf("line %d: %s", i+1, event.Marshal(&e))
		}
		if e.ID == oc[i].ID {
			t.Errorf("line %d: the same id as OpenCode's event", i+1)
		}
	}
}

// TestBatches: the plugin's lines come several at once; ag-hook reads
// its stdin whole.
func TestBatches(t *testing.T) {
	var m any = Mapper{}
	if b, ok := m.(interface{ Batches() bool }); !ok || !b.Batches() {
		t.Error("Kilo's plugin batches lines: ag-hook must read them all")
	}
}

func FuzzMapHook(f *testing.F) {
	f.Add([]byte(lines))
	f.Add([]byte(`{"type":"session.status","properties":{"sessionID":"s","status":{"type":"busy"}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, e := range must(Mapper{}.MapHook(raw, hc)) {
			if e.Agent != ID || e.Session == "" {
				t.Fatalf("%s", event.Marshal(&e))
			}
		}
	})
}

func must(evs []event.Event, _ error) []event.Event { return evs }
