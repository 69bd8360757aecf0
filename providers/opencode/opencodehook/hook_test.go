package opencodehook

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var hc = provider.HookContext{Now: time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC), PID: 77, TTY: "/dev/pts/4", Pane: "%3", Cwd: "/w", Host: "box"}

// line is one line as the plugin writes it (ev: the bus event's JSON).
func line(ev string, extra string) string {
	return `{"t":1786798405461,"pid":77,` + extra + `"event":` + ev + "}"
}

// TestMapHook: each line the plugin sends, from payloads OpenCode 1.18.33
// fired here (agents-live.md §4a) and the plugin's own chat/tool lines.
func TestMapHook(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // kind session sub attention tool tool_id text reason
	}{
		{"prompt", line(`{"type":"chat.message","properties":{"sessionID":"ses_a","messageID":"msg_1","agent":"build","model":{"providerID":"fake","modelID":"fake-model"},"text":"say hello"}}`, ""),
			"turn.start ses_a - - - - say hello -"},
		{"busy", line(`{"type":"session.status","properties":{"sessionID":"ses_a","status":{"type":"busy"}}}`, ""), "turn.start ses_a - - - - - -"},
		{"idle status", line(`{"type":"session.status","properties":{"sessionID":"ses_a","status":{"type":"idle"}}}`, ""), "turn.end ses_a - - - - - -"},
		{"unknown status", line(`{"type":"session.status","properties":{"sessionID":"ses_a","status":{"type":"sleepy"}}}`, ""), ""},
		{"idle", line(`{"type":"session.idle","properties":{"sessionID":"ses_a"}}`, ""), "turn.end ses_a - - - - - -"},
		{"permission", line(`{"type":"permission.asked","properties":{"id":"per_1","sessionID":"ses_a","permission":"bash","patterns":["echo marker > marker.txt"],"metadata":{"command":"echo marker > marker.txt"},"always":["echo *"],"tool":{"messageID":"msg_2","callID":"call_a790"}}}`, ""),
			"wait ses_a - permission bash call_a790 echo marker > marker.txt -"},
		{"edit permission: the path", line(`{"type":"permission.asked","properties":{"id":"per_2","sessionID":"ses_a","permission":"edit","patterns":["src/x.go"],"metadata":{"filepath":"/w/src/x.go","diff":"..."}}}`, ""),
			"wait ses_a - permission edit - /w/src/x.go -"},
		{"allowed once", line(`{"type":"permission.replied","properties":{"sessionID":"ses_a","requestID":"per_1","reply":"once"}}`, ""), "wait.end ses_a - - - - - -"},
		{"rejected", line(`{"type":"permission.replied","properties":{"sessionID":"ses_a","requestID":"per_1","reply":"reject"}}`, ""), "wait.end ses_a - - - - - denied"},
		{"question", line(`{"type":"question.asked","properties":{"id":"que_1","sessionID":"ses_a","questions":[{"question":"Which file?","header":"File","options":[]},{"question":"And?"}],"tool":{"callID":"call_q"}}}`, ""),
			"wait ses_a - question question call_q Which file? (+1 more) -"},
		// One question: its options (OpenCode 1.18.33's question.asked, as
		// the make e2e question sends it).
		{"question with options", line(`{"type":"question.asked","properties":{"id":"que_2","sessionID":"ses_a","questions":[{"question":"Which file first?","header":"File","options":[{"label":"a.go","description":"the first"},{"label":"b.go","description":"the second"}]}],"tool":{"messageID":"msg_3","callID":"call_q2"}}}`, ""),
			"wait ses_a - question question call_q2 Which file first? - [a.go b.go]"},
		{"question answered", line(`{"type":"question.replied","properties":{"sessionID":"ses_a","requestID":"que_1","answers":[["a"]]}}`, ""), "wait.end ses_a - - - - - -"},
		{"question dismissed", line(`{"type":"question.rejected","properties":{"sessionID":"ses_a","requestID":"que_1"}}`, ""), "wait.end ses_a - - - - - dismissed"},
		{"error", line(`{"type":"session.error","properties":{"sessionID":"ses_a","error":{"name":"APIError","data":{"message":"Bad Gateway"}}}}`, ""), "turn.fail ses_a - - - - Bad Gateway APIError"},
		{"escape", line(`{"type":"session.error","properties":{"sessionID":"ses_a","error":{"name":"MessageAbortedError","data":{"message":"Aborted"}}}}`, ""), "interrupt ses_a - - - - Aborted MessageAbortedError"},
		{"tool", line(`{"type":"tool.execute.before","properties":{"sessionID":"ses_a","tool":"bash","callID":"call_1","args":{"command":"ls","description":"List"}}}`, ""), "tool.start ses_a - - bash call_1 ls -"},
		{"tool end", line(`{"type":"tool.execute.after","properties":{"sessionID":"ses_a","tool":"bash","callID":"call_1"}}`, ""), "tool.end ses_a - - bash call_1 - -"},
		{"created", line(`{"type":"session.created","properties":{"sessionID":"ses_a","info":{"id":"ses_a","directory":"/proj"}}}`, ""), "session.start ses_a - - - - - -"},
		{"deleted", line(`{"type":"session.deleted","properties":{"sessionID":"ses_a"}}`, ""), "session.end ses_a - - - - - -"},
		{"sub-agent's prompt is the parent's", line(`{"type":"permission.asked","properties":{"sessionID":"ses_c","permission":"bash","metadata":{"command":"rm x"},"tool":{"callID":"call_9"}}}`, `"parent":"ses_p",`),
			"wait ses_p ses_c permission bash call_9 rm x -"},
		{"not ag's", line(`{"type":"message.part.updated","properties":{"sessionID":"ses_a"}}`, ""), ""},
		{"no session", line(`{"type":"session.idle","properties":{}}`, ""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Mapper{}.MapHook([]byte(tc.in), hc)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(evs) > 0 {
				e := evs[0]
				got = strings.Join([]string{e.Kind, e.Session, dash(e.Sub), dash(e.Attention), dash(e.Tool), dash(e.ToolID), dash(e.Text), dash(e.Reason)}, " ")
				if len(e.Options) > 0 {
					got += " [" + strings.Join(e.Options, " ") + "]"
				}
				if e.Agent != ID || e.Src != event.SrcHook || e.ID == "" || e.PID != 77 || e.Pane != "%3" || !e.T.Equal(time.UnixMilli(1786798405461)) {
					t.Errorf("envelope: %s", event.Marshal(&e))
				}
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// TestMapHookBatch: a batch maps line by line; a broken line is named and
// does not cost the others; the plugin's pid stands when ag-hook's walk
// found another process (OpenCode had exited); the model is provider/model.
func TestMapHookBatch(t *testing.T) {
	in := line(`{"type":"chat.message","properties":{"sessionID":"ses_a","messageID":"m","model":{"providerID":"fake","modelID":"m1"},"text":"x"}}`, "") + "\n{broken\n\n" +
		strings.Replace(line(`{"type":"session.idle","properties":{"sessionID":"ses_a"}}`, ""), `"pid":77`, `"pid":90`, 1) + "\n"
	evs, err := Mapper{}.MapHook([]byte(in), hc)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v, want one naming line 2", err)
	}
	if len(evs) != 2 || evs[0].Model != "fake/m1" || evs[0].Run != "m" || evs[1].PID != 90 || evs[1].TTY != "" {
		t.Fatalf("events: %v", evs)
	}
	if evs[0].ID == evs[1].ID {
		t.Error("two lines, one id")
	}
	again, _ := Mapper{}.MapHook([]byte(in), hc)
	if again[0].ID != evs[0].ID {
		t.Error("the same batch delivered twice: different ids")
	}
}

// TestCorpus: the real plugin events in ../shared/corpus map (bus events as
// OpenCode hands them to a plugin, without the plugin's envelope).
func TestCorpus(t *testing.T) {
	f, err := os.Open("../../../../shared/corpus/opencode/plugin-events/opencode-1.18.15-permission-asked.jsonl")
	if err != nil {
		t.Skip("no corpus:", err)
	}
	defer f.Close()
	var kinds []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		evs, err := Mapper{}.MapHook(sc.Bytes(), hc)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			kinds = append(kinds, e.Kind+":"+e.Tool+":"+e.Text)
		}
	}
	if got := strings.Join(kinds, " "); got != "session.start:: wait:bash:rm NOTE.txt" {
		t.Errorf("corpus maps to %q", got)
	}
}

func FuzzMapHook(f *testing.F) {
	f.Add([]byte(line(`{"type":"permission.asked","properties":{"sessionID":"s","permission":"bash","patterns":["x"],"metadata":{"command":7}}}`, `"parent":"p",`)))
	f.Add([]byte(line(`{"type":"question.asked","properties":{"sessionID":"s","questions":[1,{"question":null}]}}`, "")))
	f.Add([]byte("{}\n[]\n\"x\"\n" + line(`{"type":"session.status","properties":{"sessionID":"s","status":null}}`, "")))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, _ := Mapper{}.MapHook(b, hc)
		for _, e := range evs {
			if e.Session == "" || e.Agent != ID || len(e.Text) > textMax {
				t.Fatalf("bad event %s", event.Marshal(&e))
			}
			var back event.Event
			if err := event.Decode(event.Marshal(&e)[:len(event.Marshal(&e))-1], &back); err != nil {
				t.Fatalf("event does not round-trip: %v", err)
			}
		}
	})
}
