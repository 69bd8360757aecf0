package geminihook

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var hc = provider.HookContext{Now: time.Date(2026, 12, 1, 11, 27, 5, 0, time.UTC), PID: 2581, TTY: "/dev/pts/3", Pane: "%7", Cwd: "/fallback", Host: "box"}

// TestMapHookGolden: the payloads the real Gemini CLI 0.61.0 sent a
// recording hook, mapped: in one session a plain turn, an approved
// command, a denied one and /quit (hooks); in another every other wait
// it has (waits) — a question answered, dismissed with Escape and
// cancelled with Ctrl+C, plan mode entered, a plan answered with
// feedback, refused and approved, a write approved and an edit denied.
func TestMapHookGolden(t *testing.T) {
	for _, name := range []string{"hooks", "waits"} {
		t.Run(name, func(t *testing.T) {
			mapGolden(t, "testdata/gemini-0.61.0-"+name+".jsonl", "testdata/gemini-0.61.0-"+name+".golden")
		})
	}
}

func mapGolden(t *testing.T, in, golden string) {
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// The waits were recorded in /tmp/gw; testdata/gw holds the plan
		// file the model wrote there.
		line := bytes.ReplaceAll(sc.Bytes(), []byte(`"/tmp/gw/`), []byte(`"testdata/gw/`))
		evs, err := Mapper{}.MapHook(line, hc)
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
		t.Fatalf("%v (go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("events differ from %s:\n%s", golden, got)
	}
}

func TestMapHook(t *testing.T) {
	const common = `"session_id":"s1","transcript_path":"/h/.gemini/tmp/p/chats/session-x.jsonl","cwd":"/p","timestamp":"2026-12-01T11:21:38.208Z"`
	notif := func(details string) string {
		return `{` + common + `,"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Tool requires confirmation","details":` + details + `}`
	}
	for _, tc := range []struct {
		name, payload string
		want          event.Event // only the fields set here are compared
		none          bool
	}{
		{name: "SessionStart", payload: `{` + common + `,"hook_event_name":"SessionStart","source":"clear"}`,
			want: event.Event{Kind: event.SessionStart, Text: "clear", Cwd: "/p", Transcript: "/h/.gemini/tmp/p/chats/session-x.jsonl"}},
		{name: "BeforeAgent", payload: `{` + common + `,"hook_event_name":"BeforeAgent","prompt":"say hello"}`,
			want: event.Event{Kind: event.TurnStart, Text: "say hello"}},
		{name: "BeforeTool", payload: `{` + common + `,"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"echo a\necho b","description":"two"}}`,
			want: event.Event{Kind: event.ToolStart, Tool: "run_shell_command", Text: "echo a\necho b"}},
		{name: "BeforeTool read_file", payload: `{` + common + `,"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"/p/a.go"}}`,
			want: event.Event{Kind: event.ToolStart, Tool: "read_file", Text: "/p/a.go"}},
		{name: "BeforeTool ask_user", payload: `{` + common + `,"hook_event_name":"BeforeTool","tool_name":"ask_user","tool_input":{"questions":[{"question":"Which one?","type":"choice"},{"question":"Sure?"}]}}`,
			want: event.Event{Kind: event.ToolStart, Tool: "ask_user", Text: "Which one?\nSure?"}},
		// One question: its options are the picker's rows; yesno's are
		// the Yes and No Gemini draws; a text question has none.
		{name: "BeforeTool ask_user, one choice", payload: `{` + common + `,"hook_event_name":"BeforeTool","tool_name":"ask_user","tool_input":{"questions":[{"question":"Which colour","type":"choice","options":[{"label":"Blue","description":"the sky"},{"label":"Green"}]}]}}`,
			want: event.Event{Kind: event.ToolStart, Tool: "ask_user", Text: "Which colour", Options: []string{"Blue", "Green"}}},
		{name: "BeforeTool ask_user, yesno", payload: `{` + common + `,"hook_event_name":"BeforeTool","tool_name":"ask_user","tool_input":{"questions":[{"question":"Proceed?","header":"Go","type":"yesno"}]}}`,
			want: event.Event{Kind: event.ToolStart, Tool: "ask_user", Text: "Proceed?", Options: []string{"Yes", "No"}}},
		{name: "BeforeTool ask_user, text", payload: `{` + common + `,"hook_event_name":"BeforeTool","tool_name":"ask_user","tool_input":{"questions":[{"question":"Your name","type":"text"}]}}`,
			want: event.Event{Kind: event.ToolStart, Tool: "ask_user", Text: "Your name"}},
		{name: "AfterTool", payload: `{` + common + `,"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{},"tool_response":{"llmContent":"x","returnDisplay":"x"}}`,
			want: event.Event{Kind: event.ToolEnd, Tool: "run_shell_command"}},
		{name: "AfterTool with an error", payload: `{` + common + `,"hook_event_name":"AfterTool","tool_name":"read_file","tool_response":{"llmContent":"","error":{"message":"ENOENT"}}}`,
			want: event.Event{Kind: event.ToolEnd, Tool: "read_file", Reason: "error"}},
		{name: "exec permission", payload: notif(`{"type":"exec","title":"Confirm Shell Command","command":"rm -rf build","rootCommand":"rm"}`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnPermission, Tool: "run_shell_command", Text: "rm -rf build"}},
		{name: "edit permission", payload: notif(`{"type":"edit","title":"Confirm Edit: a.go","fileName":"a.go","filePath":"/p/a.go","fileDiff":"@@","isModifying":false}`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnPermission, Tool: "replace", Text: "/p/a.go"}},
		{name: "write permission", payload: notif(`{"type":"edit","title":"Confirm Write: b.go","fileName":"b.go","filePath":"/p/b.go"}`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnPermission, Tool: "write_file", Text: "/p/b.go"}},
		{name: "mcp permission", payload: notif(`{"type":"mcp","title":"Confirm MCP Tool Execution","serverName":"git hub","toolName":"create_issue","toolDisplayName":"create_issue (git hub MCP Server)"}`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnPermission, Tool: "mcp_git_hub_create_issue", Text: "create_issue (git hub MCP Server)"}},
		{name: "web fetch permission", payload: notif(`{"type":"info","title":"Confirm Web Fetch","prompt":"summarise","urls":["https://a.example","https://b.example"]}`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnPermission, Tool: "web_fetch", Text: "https://a.example https://b.example"}},
		// No question or plan in the details: the BeforeTool before said them.
		{name: "ask_user is a question", payload: notif(`{"type":"ask_user","title":"Ask User"}`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnQuestion, Tool: "ask_user"}},
		{name: "plan approval", payload: notif(`{"type":"exit_plan_mode","title":"Plan Approval"}`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnPlan, Tool: "exit_plan_mode"}},
		{name: "entering plan mode asks permission", payload: notif(`{"type":"info","title":"Enter Plan Mode","prompt":"This will restrict the agent to read-only tools to allow for safe planning."}`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnPermission, Tool: "enter_plan_mode", Text: "This will restrict the agent to read-only tools to allow for safe planning."}},
		{name: "BeforeTool enter_plan_mode", payload: `{` + common + `,"hook_event_name":"BeforeTool","tool_name":"enter_plan_mode","tool_input":{"reason":"plan first"}}`,
			want: event.Event{Kind: event.ToolStart, Tool: "enter_plan_mode", Text: "plan first"}},
		{name: "BeforeTool exit_plan_mode with no plan file", payload: `{` + common + `,"hook_event_name":"BeforeTool","tool_name":"exit_plan_mode","tool_input":{"plan_filename":"p.md"}}`,
			want: event.Event{Kind: event.ToolStart, Tool: "exit_plan_mode", Text: "p.md"}},
		{name: "sandbox expansion", payload: notif(`{"type":"sandbox_expansion","title":"Sandbox Expansion Request"}`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnPermission, Text: "Sandbox Expansion Request"}},
		{name: "details of a surprising type", payload: notif(`"exec"`),
			want: event.Event{Kind: event.Wait, Attention: event.AttnPermission, Text: "Tool requires confirmation"}},
		{name: "another notification", payload: `{` + common + `,"hook_event_name":"Notification","notification_type":"Other"}`, none: true},
		{name: "AfterAgent", payload: `{` + common + `,"hook_event_name":"AfterAgent","prompt":"p","prompt_response":"done","stop_hook_active":false}`,
			want: event.Event{Kind: event.TurnEnd}},
		{name: "SessionEnd", payload: `{"session_id":"s1","hook_event_name":"SessionEnd","reason":"exit"}`,
			want: event.Event{Kind: event.SessionEnd, Reason: "exit", Cwd: "/fallback"}},
		{name: "PreCompress says nothing", payload: `{` + common + `,"hook_event_name":"PreCompress","trigger":"auto"}`, none: true},
		{name: "BeforeModel says nothing", payload: `{` + common + `,"hook_event_name":"BeforeModel","llm_request":{}}`, none: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Mapper{}.MapHook([]byte(tc.payload), hc)
			if err != nil {
				t.Fatal(err)
			}
			if tc.none {
				if len(evs) != 0 {
					t.Fatalf("want no events, got %+v", evs)
				}
				return
			}
			if len(evs) != 1 {
				t.Fatalf("got %d events", len(evs))
			}
			e, w := evs[0], tc.want
			if err := e.Validate(); err != nil {
				t.Fatal(err)
			}
			if e.Agent != "gemini" || e.Session != "s1" || e.Src != event.SrcHook || e.ID == "" || e.PID != 2581 || e.Pane != "%7" || e.Host != "box" {
				t.Errorf("envelope %+v", e)
			}
			if e.Kind != w.Kind || e.Tool != w.Tool || e.Text != w.Text || e.Attention != w.Attention || e.Reason != w.Reason || !slices.Equal(e.Options, w.Options) ||
				(w.Cwd != "" && e.Cwd != w.Cwd) || (w.Transcript != "" && e.Transcript != w.Transcript) {
				t.Errorf("got  %+v\nwant %+v", e, w)
			}
		})
	}
}

// TestPlanText: exit_plan_mode's BeforeTool says the plan the model wrote
// in the session's plans folder; a name that leaves it reads nothing.
func TestPlanText(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".gemini", "tmp", "p")
	plans := filepath.Join(root, "s1", "plans")
	if err := os.MkdirAll(plans, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(plans, "colour.md"), []byte("# Plan: paint it\n\n1. Write colour.txt\n"), 0o644)
	os.WriteFile(filepath.Join(root, "secret.md"), []byte("not a plan"), 0o644)
	before := func(name string) string {
		raw := `{"session_id":"s1","transcript_path":"` + filepath.Join(root, "chats", "session-x.jsonl") + `","cwd":"/p","hook_event_name":"BeforeTool","tool_name":"exit_plan_mode","tool_input":{"plan_filename":"` + name + `"}}`
		evs, err := Mapper{}.MapHook([]byte(raw), hc)
		if err != nil || len(evs) != 1 {
			t.Fatalf("%s: %v %v", name, evs, err)
		}
		return evs[0].Text
	}
	for name, want := range map[string]string{
		"colour.md":       "# Plan: paint it\n\n1. Write colour.txt",
		"none.md":         "none.md",
		"../../secret.md": "../../secret.md",
		"/etc/passwd":     "/etc/passwd",
	} {
		if got := before(name); got != want {
			t.Errorf("plan %q: text %q, want %q", name, got, want)
		}
	}
}

func TestMapHookErrors(t *testing.T) {
	for _, bad := range []string{``, `{`, `[1]`, `{"session_id":"s"}`, `{"hook_event_name":"BeforeAgent"}`} {
		if _, err := (Mapper{}).MapHook([]byte(bad), hc); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestAnswer: `{}` whatever the payload, and never a decision.
func TestAnswer(t *testing.T) {
	for _, p := range []string{"", "{", `{"hook_event_name":"BeforeTool"}`, strings.Repeat("x", 1000)} {
		if got := string(Mapper{}.Answer([]byte(p))); got != "{}" {
			t.Errorf("Answer(%q) = %q", p, got)
		}
	}
}

func FuzzMapHook(f *testing.F) {
	data, _ := os.ReadFile("testdata/gemini-0.61.0-hooks.jsonl")
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
