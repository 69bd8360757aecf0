package pihook

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var hc = provider.HookContext{Now: time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC), PID: 5, Pane: "%4", Host: "box"}

func ln(fields string) string {
	return `{"t":1786798405461,"pid":5,"session":"s1","file":"/h/.pi/agent/sessions/--w--/x_s1.jsonl","cwd":"/w",` + fields + "}"
}

// TestMap: each line the extension writes, for Pi and omp.
func TestMap(t *testing.T) {
	for _, tc := range []struct {
		name, agent, in string
		want            []string // kind session tool tool_id text reason
	}{
		{"start", "pi", ln(`"type":"session_start","reason":"startup"`), []string{"session.start s1 - - startup -"}},
		{"prompt", "pi", ln(`"type":"agent_start","text":"say hello"`), []string{"turn.start s1 - - say hello -"}},
		{"tool", "pi", ln(`"type":"tool_execution_start","toolCallId":"c1","toolName":"bash","text":"ls"`), []string{"tool.start s1 bash c1 ls -"}},
		{"omp's ask: the call is a question wait", "omp", ln(`"type":"tool_execution_start","toolCallId":"c3","toolName":"ask","text":"Which colour?"`),
			[]string{"tool.start s1 ask c3 Which colour? -", "wait s1 ask c3 Which colour? -"}},
		{"its options: the labels the extension read", "omp", ln(`"type":"tool_execution_start","toolCallId":"c3","toolName":"ask","text":"Which colour?","options":["Blue"," ",7,"Green","blue"]`),
			[]string{"tool.start s1 ask c3 Which colour? - [Blue Green]", "wait s1 ask c3 Which colour? - [Blue Green]"}},
		{"no options but a question's", "pi", ln(`"type":"tool_execution_start","toolCallId":"c1","toolName":"bash","text":"ls","options":["x"]`), []string{"tool.start s1 bash c1 ls -"}},
		{"tool end", "pi", ln(`"type":"tool_execution_end","toolCallId":"c1","toolName":"bash","isError":false`), []string{"tool.end s1 bash c1 - -"}},
		{"end", "pi", ln(`"type":"agent_end","stopReason":"stop"`), []string{"turn.end s1 - - - -"}},
		{"error", "pi", ln(`"type":"agent_end","stopReason":"error","errorMessage":"429 Too Many Requests"`), []string{"turn.fail s1 - - 429 Too Many Requests error"}},
		{"escape", "pi", ln(`"type":"agent_end","stopReason":"aborted"`), []string{"interrupt s1 - - - -"}},
		{"/compact at the prompt", "pi", ln(`"type":"compact_start","trigger":"manual"`), []string{"tool.start s1 compact - manual -"}},
		{"its end, or Escape", "omp", ln(`"type":"compact_end","trigger":"manual","aborted":true`), []string{"tool.end s1 compact - manual -"}},
		{"quit", "pi", ln(`"type":"session_shutdown","reason":"quit"`), []string{"session.end s1 - - - quit"}},
		{"/new", "pi", ln(`"type":"session_shutdown","reason":"new"`), []string{"session.end s1 - - - new"}},
		{"reload keeps the session", "pi", ln(`"type":"session_shutdown","reason":"reload"`), nil},
		{"omp quits naming no reason", "omp", ln(`"type":"session_shutdown"`), []string{"session.end s1 - - - exit"}},
		{"omp /new: in place", "omp", ln(`"type":"session_switch","reason":"new","previous":"s0"`),
			[]string{"session.end s0 - - - now session s1", "session.start s1 - - new -"}},
		{"omp branch", "omp", ln(`"type":"session_branch","previous":"s0"`), []string{"session.end s0 - - - now session s1", "session.start s1 - - - -"}},
		{"approval: the oldest pending is on screen", "omp", ln(`"type":"tool_approval_requested","toolCallId":"c2","toolName":"write","head":{"toolCallId":"c1","toolName":"bash","text":"ls"}`),
			[]string{"wait s1 bash c1 ls -"}},
		{"resolved, another pending", "omp", ln(`"type":"tool_approval_resolved","toolCallId":"c1","toolName":"bash","approved":true,"head":{"toolCallId":"c2","toolName":"write"}`),
			[]string{"wait s1 write c2 - -"}},
		{"last approved", "omp", ln(`"type":"tool_approval_resolved","toolCallId":"c2","toolName":"write","approved":true,"head":null`), []string{"wait.end s1 write c2 - -"}},
		{"last denied", "omp", ln(`"type":"tool_approval_resolved","toolCallId":"c2","toolName":"write","approved":false`), []string{"wait.end s1 write c2 - denied"}},
		{"no session yet", "pi", `{"type":"agent_start","session":""}`, nil},
		{"unknown", "pi", ln(`"type":"turn_start"`), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Map(tc.agent, []byte(tc.in), hc)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range evs {
				l := strings.Join([]string{e.Kind, e.Session, d(e.Tool), d(e.ToolID), d(e.Text), d(e.Reason)}, " ")
				if len(e.Options) > 0 {
					l += " [" + strings.Join(e.Options, " ") + "]"
				}
				got = append(got, l)
				if want := map[bool]string{true: event.AttnPermission, false: event.AttnQuestion}[e.Tool != "ask"]; e.Kind == event.Wait && e.Attention != want {
					t.Errorf("wait's attention %q, want %q", e.Attention, want)
				}
				if e.Agent != tc.agent || e.Src != event.SrcHook || e.ID == "" || e.PID != 5 || e.Cwd != "/w" || e.Pane != "%4" ||
					!strings.HasSuffix(e.Transcript, "_s1.jsonl") || !e.T.Equal(time.UnixMilli(1786798405461)) {
					t.Errorf("envelope: %s", event.Marshal(&e))
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func d(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func FuzzMap(f *testing.F) {
	f.Add([]byte(ln(`"type":"tool_approval_resolved","head":{"toolName":3},"approved":"yes"`)))
	f.Add([]byte(ln(`"type":"session_switch","previous":null`) + "\n" + ln(`"type":"agent_end","stopReason":[]`)))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, _ := Map("omp", b, hc)
		for _, e := range evs {
			if e.Session == "" || len(e.Text) > textMax {
				t.Fatalf("bad event %s", event.Marshal(&e))
			}
		}
	})
}
