package clinehook

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/provider"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// recorded is a session of the real Cline CLI 3.0.65 (against a fake
// model, auto-approve on, then off): each line is {"hook": the file that
// ran, "payload": its stdin}. Prompts: a plain one; a command with
// auto-approve on; approved; denied (n); refused with Escape; a question
// answered by digit, then in words; Escape at work; an API error; plan
// mode's switch_to_act_mode approved (and the turn Cline starts after
// it); a prompt; /clear; a prompt in the new session.
const recorded = "testdata/hooks-3.0.65.jsonl"

// hcAt is the context ag-hook gives a hook of that event at now.
func hcAt(now time.Time, hook string) provider.HookContext {
	return provider.HookContext{Now: now, PID: 16855, TTY: "/dev/pts/2", Pane: "%4", Cwd: "/elsewhere", Host: "box", Event: hook}
}

type line struct {
	hook    string
	payload []byte
}

func readRecorded(t testing.TB) []line {
	t.Helper()
	f, err := os.Open(recorded)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l line
		if err := jsonscan.Members(sc.Bytes(), func(k string, v []byte) error {
			switch k {
			case "hook":
				l.hook = jsonscan.Text(v)
			case "payload":
				l.payload = bytes.Clone(v)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// TestRecorded: the recorded session's events, as a golden file (one line
// a hook: its event, then what it maps to).
func TestRecorded(t *testing.T) {
	var b strings.Builder
	for _, l := range readRecorded(t) {
		var p payload
		parse(l.payload, &p)
		ts, err := time.Parse(time.RFC3339Nano, p.Timestamp)
		if err != nil {
			t.Fatal(err)
		}
		now := ts.Add(4 * time.Millisecond)
		evs, err := Mapper{}.MapHook(l.payload, hcAt(now, l.hook))
		if err != nil {
			t.Fatalf("%s: %v", l.hook, err)
		}
		for _, e := range evs {
			if e.Agent != ID || e.Session != p.Session || e.PID != 16855 || e.Pane != "%4" || e.Cwd != "/tmp/ccap/project" {
				t.Errorf("%s: %s", l.hook, event.Marshal(&e))
			}
			b.WriteString(l.hook + " → " + strings.Join([]string{e.T.UTC().Format("15:04:05.000"), e.Kind, e.Session, or(e.Sub), or(e.Attention), or(e.Tool), or(e.ToolID), or(strings.ReplaceAll(e.Text, "\n", `\n`)), or(e.Reason)}, " "))
			if len(e.Options) > 0 {
				b.WriteString(" [" + strings.Join(e.Options, "|") + "]")
			}
			b.WriteString("\n")
		}
		if len(evs) == 0 {
			b.WriteString(l.hook + " → nothing\n")
		}
	}
	golden := "testdata/hooks-3.0.65.golden"
	if *update {
		os.WriteFile(golden, []byte(b.String()), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if b.String() != string(want) {
		t.Errorf("mapped events differ from %s (-update):\n%s", golden, b.String())
	}
}

func or(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// TestMapHook: what the recording does not hold.
func TestMapHook(t *testing.T) {
	now := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	base := `"timestamp":"2026-12-04T18:00:00.000Z","taskId":"conv_1","sessionContext":{"rootSessionId":"1_s"},"workspaceRoots":["/p"],"agent_id":"agent_2","parent_agent_id":`
	for _, tc := range []struct {
		name, hook, payload string
		want                string // kind sub attention tool text reason
	}{
		{"a sub-agent's call is its session's", "", `{` + base + `"agent_1","hookName":"tool_call","tool_call":{"id":"c","name":"run_commands","input":{"commands":["ls","pwd"]}}}`, "tool.start agent_2 - run_commands ls\\npwd -"},
		{"named by its payload alone", "", `{` + base + `null,"hookName":"agent_end","turn":{"status":"completed"}}`, "turn.end - - - - -"},
		{"an aborted turn", TaskComplete, `{` + base + `null,"turn":{"status":"aborted"}}`, "interrupt - - - - aborted"},
		{"a prompt", UserPromptSubmit, `{` + base + `null,"userPromptSubmit":{"prompt":"<user_input mode=\"act\">fix it</user_input>"}}`, "turn.start - - - fix it -"},
		{"cancel", TaskCancel, `{` + base + `null}`, "interrupt - - - - taskcancel"},
		{"read_files", PreToolUse, `{` + base + `null,"tool_call":{"id":"c","name":"read_files","input":{"files":[{"path":"/p/a.go"}]}}}`, "tool.start - - read_files /p/a.go -"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Mapper{}.MapHook([]byte(tc.payload), hcAt(now, tc.hook))
			if err != nil || len(evs) != 1 {
				t.Fatalf("%v %v", evs, err)
			}
			e := evs[0]
			got := strings.Join([]string{e.Kind, or(e.Sub), or(e.Attention), or(e.Tool), or(strings.ReplaceAll(e.Text, "\n", `\n`)), or(e.Reason)}, " ")
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	for _, bad := range []string{``, `{}`, `{"hookName":"agent_start"}`, `[1]`, `{"sessionContext":{"rootSessionId":"x"}}`} {
		if _, err := (Mapper{}).MapHook([]byte(bad), hcAt(now, "")); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestUserText(t *testing.T) {
	for in, want := range map[string]string{
		`<user_input mode="act">say hello</user_input>`: "say hello",
		"<user_input mode=\"plan\"><mode_notice>The user switched from act mode to plan mode before sending this message.</mode_notice>\nplan it</user_input>": "plan it",
		"plain":             "plain",
		"<user_input mode=": "<user_input mode=",
		"a <mode_notice> b": "a <mode_notice> b",
	} {
		if got := UserText(in); got != want {
			t.Errorf("UserText(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzMapHook(f *testing.F) {
	for _, l := range readRecorded(f) {
		f.Add(l.hook, l.payload)
	}
	f.Fuzz(func(t *testing.T, hook string, raw []byte) {
		evs, err := Mapper{}.MapHook(raw, hcAt(time.Unix(1796408521, 0), hook))
		if err != nil && len(evs) > 0 {
			t.Fatal("events and an error")
		}
		for _, e := range evs {
			if e.Agent != ID || e.Session == "" || e.Kind == "" {
				t.Fatalf("%s", event.Marshal(&e))
			}
		}
	})
}
