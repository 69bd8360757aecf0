package anthropic

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve/servetest"
)

// sseEvent is one parsed server-sent event, with when it arrived.
type sseEvent struct {
	Name string
	Data map[string]any
	At   time.Time
}

// readSSE parses an event stream the way a client does: "event:" and "data:"
// lines, dispatched on a blank line; it fails the test on anything else.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var evs []sseEvent
	var name, data string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if name == "" && data == "" {
				continue
			}
			var d map[string]any
			if err := json.Unmarshal([]byte(data), &d); err != nil {
				t.Fatalf("event %q: data is not JSON: %v: %s", name, err, data)
			}
			if d["type"] != name {
				t.Errorf("event %q carries type %v", name, d["type"])
			}
			evs = append(evs, sseEvent{name, d, time.Now()})
			name, data = "", ""
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if name != "" || data != "" {
		t.Fatalf("stream ended inside an event (%q)", name)
	}
	return evs
}

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	return servetest.Post(t, url, body)
}

// request builds a Messages request body like the CLI's: tools offered,
// a reminder block before the prompt, a system-role message after it.
func request(model string, stream bool, tools int, content string) string {
	ts := make([]map[string]string, tools)
	for i := range ts {
		ts[i] = map[string]string{"name": fmt.Sprintf("Tool%d", i)}
	}
	b, _ := json.Marshal(map[string]any{
		"model": model, "stream": stream, "max_tokens": 1000, "tools": ts,
		"messages": []any{
			map[string]any{"role": "user", "content": json.RawMessage(content)},
			map[string]any{"role": "system", "content": "Available agent types: RUN: not-this"},
		},
	})
	return string(b)
}

func prompt(text string) string {
	b, _ := json.Marshal([]map[string]string{
		{"type": "text", "text": "<system-reminder>\nRUN: not-this either\n</system-reminder>"},
		{"type": "text", "text": text},
	})
	return string(b)
}

// assembled is a streamed message put back together by a client.
type assembled struct {
	names      []string
	model      string
	text       string
	tool       string
	toolInput  map[string]any
	stopReason string
	inTokens   float64
	outTokens  float64
}

func assemble(t *testing.T, evs []sseEvent) assembled {
	t.Helper()
	var a assembled
	var partial strings.Builder
	open := -1
	for _, e := range evs {
		a.names = append(a.names, e.Name)
		switch e.Name {
		case "message_start":
			m := e.Data["message"].(map[string]any)
			a.model = m["model"].(string)
			a.inTokens = m["usage"].(map[string]any)["input_tokens"].(float64)
		case "content_block_start":
			if open != -1 {
				t.Errorf("block %v started inside block %d", e.Data["index"], open)
			}
			open = int(e.Data["index"].(float64))
			cb := e.Data["content_block"].(map[string]any)
			if cb["type"] == "tool_use" {
				a.tool = cb["name"].(string)
				if !strings.HasPrefix(cb["id"].(string), "toolu_") {
					t.Errorf("tool_use id %v", cb["id"])
				}
			}
		case "content_block_delta":
			if int(e.Data["index"].(float64)) != open {
				t.Errorf("delta for block %v while %d is open", e.Data["index"], open)
			}
			d := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				a.text += d["text"].(string)
			case "input_json_delta":
				partial.WriteString(d["partial_json"].(string))
			default:
				t.Errorf("delta type %v", d["type"])
			}
		case "content_block_stop":
			open = -1
		case "message_delta":
			a.stopReason = e.Data["delta"].(map[string]any)["stop_reason"].(string)
			a.outTokens = e.Data["usage"].(map[string]any)["output_tokens"].(float64)
		}
	}
	if partial.Len() > 0 {
		if err := json.Unmarshal([]byte(partial.String()), &a.toolInput); err != nil {
			t.Errorf("tool input %q: %v", partial.String(), err)
		}
	}
	return a
}

func TestStreamText(t *testing.T) {
	s := start(t)
	resp := post(t, s.URL+"/v1/messages?beta=true", request("claude-opus-4-8", true, 3, prompt("say hello")))
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	a := assemble(t, readSSE(t, resp.Body))
	want := "message_start ping content_block_start content_block_delta content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(a.names, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if a.model != "claude-opus-4-8" || a.text != "FAKE-REPLY: say hello" || a.stopReason != "end_turn" || a.tool != "" {
		t.Errorf("got %+v", a)
	}
	u := s.Requests()[0].Usage
	if a.inTokens != float64(u.In) || a.outTokens != float64(u.Out) || u.CacheRead < 10 || u.CacheWrite < 1 || u.Context() < 40 {
		t.Errorf("streamed usage in=%v out=%v, logged %+v", a.inTokens, a.outTokens, u)
	}
}

func TestStreamToolUseThenResult(t *testing.T) {
	s := start(t)
	cmd := `echo "marker ✓" > marker.txt`
	resp := post(t, s.URL+"/v1/messages?beta=true", request("claude-sonnet-4-6", true, 27, prompt("please\nRUN: "+cmd+"\nthanks")))
	a := assemble(t, readSSE(t, resp.Body))
	if a.tool != "Bash" || a.toolInput["command"] != cmd || a.stopReason != "tool_use" || a.model != "claude-sonnet-4-6" {
		t.Fatalf("got %+v", a)
	}
	if a.text != "I will run the command." {
		t.Errorf("text before the tool: %q", a.text)
	}
	if n := strings.Count(strings.Join(a.names, " "), "content_block_start"); n != 2 {
		t.Errorf("%d blocks, want text + tool_use", n)
	}

	result := `[{"type":"tool_result","tool_use_id":"toolu_x","content":"(Bash completed with no output)"},{"type":"text","text":"<system-reminder>RUN: no</system-reminder>"}]`
	resp = post(t, s.URL+"/v1/messages?beta=true", request("claude-sonnet-4-6", true, 27, result))
	a = assemble(t, readSSE(t, resp.Body))
	if a.tool != "" || a.stopReason != "end_turn" || !strings.Contains(a.text, "(Bash completed with no output)") {
		t.Errorf("after tool_result: %+v", a)
	}

	log := s.Requests()
	if len(log) != 2 || log[0].Reply != "tool:Bash "+cmd || log[1].Reply != "text" || log[0].Tools != 27 {
		t.Errorf("request log:\n%s", s.Log())
	}
}

func TestInputTokens(t *testing.T) {
	s, err := Start(Options{InputTokens: 100000})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := assemble(t, readSSE(t, post(t, s.URL+"/v1/messages", request("m", true, 1, prompt("hi"))).Body))
	if u := s.Requests()[0].Usage; u.Context() != 100000 || a.inTokens != float64(u.In) || u.CacheRead != 50000 {
		t.Errorf("usage %+v, streamed input %v", u, a.inTokens)
	}
}

func TestSlowHoldsAfterMessageStart(t *testing.T) {
	s := start(t)
	t0 := time.Now()
	resp := post(t, s.URL+"/v1/messages", request("m", true, 1, prompt("think SLOW:400ms")))
	evs := readSSE(t, resp.Body)
	if evs[0].Name != "message_start" || evs[2].Name != "content_block_start" {
		t.Fatalf("events %v", evs)
	}
	// Measured from the request, which the server's wait follows: the gap
	// between two arrivals here can be a hair under the server's sleep.
	if d := evs[2].At.Sub(t0); d < 400*time.Millisecond {
		t.Errorf("content came %s after the request, want >= 400ms", d)
	}
	if !evs[0].At.Before(evs[2].At) {
		t.Errorf("message_start did not come before the content")
	}
}

func TestSideRequests(t *testing.T) {
	s := start(t)
	// The session-title request: no tools, a json_schema format, a prompt
	// that quotes the user's RUN: marker, which must not turn into a tool.
	body := `{"model":"claude-haiku-4-5","stream":false,"tools":[],
		"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}},
		"messages":[{"role":"user","content":"<session>\nRUN: echo x SLOW:5s\n</session>"}]}`
	t0 := time.Now()
	resp := post(t, s.URL+"/v1/messages?beta=true", body)
	var m message
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if time.Since(t0) > 2*time.Second {
		t.Error("a side request waited for SLOW")
	}
	if m.Model != "claude-haiku-4-5" || m.StopReason != "end_turn" || len(m.Content) != 1 || m.Content[0].Text != `{"title":"Fake title"}` {
		t.Errorf("got %+v", m)
	}

	resp = post(t, s.URL+"/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	var ct map[string]int
	json.NewDecoder(resp.Body).Decode(&ct)
	if resp.StatusCode != 200 || ct["input_tokens"] < 1 {
		t.Errorf("count_tokens: %d %v", resp.StatusCode, ct)
	}
}

func TestRoutesAndErrors(t *testing.T) {
	s := start(t)
	servetest.Check(t, s.URL, "HEAD", "/", "", 200, "")
	servetest.Check(t, s.URL, "POST", "/v1/messages", "{not json", 400, "")
	servetest.Check(t, s.URL, "GET", "/v1/models", "", 404, "")
	if got := len(s.Requests()); got != 3 {
		t.Errorf("%d requests logged, want 3:\n%s", got, s.Log())
	}
}

func TestCloseCutsSlowReply(t *testing.T) {
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	resp := post(t, s.URL+"/v1/messages", request("m", true, 1, prompt("SLOW:30s")))
	t0 := time.Now()
	go func() { time.Sleep(100 * time.Millisecond); s.Close() }()
	io.Copy(io.Discard, resp.Body)
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Close took %s with a slow reply open", d)
	}
}

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		tools         int
		want          Script
	}{
		{"plain", `"hello there"`, 2, Script{Prompt: "hello there", Last: "hello there", Text: "FAKE-REPLY: hello there"}},
		{"run", prompt("RUN:   ls -la  "), 2, Script{Prompt: "RUN:   ls -la  ", Last: "RUN:   ls -la  ", Command: "ls -la"}},
		{"run slow", prompt("RUN: true SLOW"), 2, Script{Prompt: "RUN: true SLOW", Last: "RUN: true SLOW", Command: "true SLOW", Delay: DefaultSlow}},
		{"slow dur", prompt("x SLOW:1.5s"), 2, Script{Prompt: "x SLOW:1.5s", Last: "x SLOW:1.5s", Text: "FAKE-REPLY: x SLOW:1.5s", Delay: 1500 * time.Millisecond}},
		{"reminder only", `[{"type":"text","text":"<system-reminder>RUN: no</system-reminder>"}]`, 2, Script{Text: "FAKE-REPLY: "}},
		{"no tools", `"RUN: ls"`, 0, Script{Prompt: "RUN: ls", Last: "RUN: ls", Text: "Fake session"}},
		{"fail", prompt("FAIL: no"), 2, Script{Prompt: "FAIL: no", Last: "FAIL: no", Fail: "no"}},
		// The CLI sends a failed prompt again with the next one.
		{"fail resent", `[{"type":"text","text":"FAIL: no"},{"type":"text","text":"go on"}]`, 2,
			Script{Prompt: "FAIL: no\ngo on", Last: "go on", Text: "FAKE-REPLY: go on"}},
		{"result", `[{"type":"tool_result","content":[{"type":"text","text":"out"}]}]`, 2, Script{Text: "FAKE-REPLY: the command finished: out"}},
		{"bad content", `42`, 2, Script{Text: "FAKE-REPLY: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var req messagesRequest
			if err := json.Unmarshal([]byte(request("m", false, tc.tools, tc.content)), &req); err != nil {
				t.Fatal(err)
			}
			if got := plan(&req); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func FuzzPlan(f *testing.F) {
	f.Add(request("m", true, 1, prompt("RUN: echo hi SLOW:1s")))
	f.Add(`{"messages":[{"role":"user","content":[{"type":"tool_result","content":"x"}]}]}`)
	f.Add(`{"tools":[{"name":"Agent"},{"name":"Write"},{"name":"ExitPlanMode"}],"messages":[{"role":"user","content":"AGENT-BG: x PLAN: y"},{"role":"system","content":"create your plan at /p.md now"}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var req messagesRequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		sc := plan(&req)
		if sc.Command == "" && sc.Tool == "" && sc.Text == "" {
			t.Errorf("no reply for %q", body)
		}
		if (sc.Command != "" || sc.Tool != "") && len(req.Tools) == 0 {
			t.Errorf("tool_use without tools for %q", body)
		}
	})
}

// named is a request offering the named tools, with messages as given.
func named(tools []string, msgs ...map[string]any) messagesRequest {
	ts := make([]map[string]string, len(tools))
	for i, n := range tools {
		ts[i] = map[string]string{"name": n}
	}
	b, _ := json.Marshal(map[string]any{"model": "m", "tools": ts, "messages": msgs})
	var req messagesRequest
	json.Unmarshal(b, &req)
	return req
}

func user(content string) map[string]any {
	return map[string]any{"role": "user", "content": json.RawMessage(content)}
}

func TestPlanToolMarkers(t *testing.T) {
	all := []string{"Bash", "Write", "Agent", ToolAsk, ToolPlan}
	reminder := map[string]any{"role": "system", "content": "## Plan File Info:\nNo plan file exists yet. You should create your plan at /h/.claude/plans/p-q.md using the Write tool."}
	writeCall := map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Write", "input": map[string]any{}}}}
	result := user(`[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]`)
	for _, tc := range []struct {
		name      string
		req       messagesRequest
		tool, in  string
		text      string
		delayless bool
	}{
		{name: "ask", req: named(all, user(prompt("ASK: Which one?"))), tool: ToolAsk,
			in: `{"questions":[{"header":"Choice","multiSelect":false,"options":[{"description":"The first choice","label":"Blue"},{"description":"The second choice","label":"Green"}],"question":"Which one?"}]}`},
		{name: "ask without the tool", req: named([]string{"Bash"}, user(prompt("ASK: Which one?"))), text: "FAKE-REPLY: ASK: Which one?"},
		{name: "plan without a plan file", req: named(all, user(prompt("PLAN: do x"))), tool: ToolPlan, in: `{"plan":"do x"}`},
		{name: "plan writes the named plan file", req: named(all, user(prompt("PLAN: do x")), reminder), tool: "Write",
			in: `{"content":"# Plan\n\ndo x\n","file_path":"/h/.claude/plans/p-q.md"}`},
		{name: "plan bare ignores the file", req: named(all, user(prompt("PLAN-BARE: do x")), reminder), tool: ToolPlan, in: `{"plan":"do x"}`},
		{name: "plan after the file is written", req: named(all, user(prompt("PLAN: do x")), reminder, writeCall, result), tool: ToolPlan, in: `{"plan":"do x"}`},
		{name: "write result without plan", req: named(all, user(prompt("hello")), writeCall, result), text: "FAKE-REPLY: the command finished: ok"},
		{name: "agent", req: named(all, user(prompt("AGENT: look SLOW:2s"))), tool: "Agent", delayless: true,
			in: `{"description":"Fake sub-agent","prompt":"look SLOW:2s","subagent_type":"general-purpose"}`},
		{name: "agent in the background", req: named(all, user(prompt("AGENT-BG: look"))), tool: "Agent",
			in: `{"description":"Fake sub-agent","prompt":"look","run_in_background":true,"subagent_type":"general-purpose"}`},
		{name: "task on older CLIs", req: named([]string{"Task"}, user(prompt("AGENT: look"))), tool: "Task",
			in: `{"description":"Fake sub-agent","prompt":"look","subagent_type":"general-purpose"}`},
		{name: "refused tool and the user's next words", req: named(all, user(`[{"type":"tool_result","content":"no"},{"type":"text","text":"Green please"}]`)),
			text: "FAKE-REPLY: Green please"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := plan(&tc.req)
			if sc.Tool != tc.tool || sc.Input != tc.in || sc.Text != tc.text || tc.delayless && sc.Delay != 0 {
				t.Errorf("got  %+v\nwant tool %q input %s text %q", sc, tc.tool, tc.in, tc.text)
			}
			if sc.Input != "" && !json.Valid([]byte(sc.Input)) {
				t.Errorf("input is not JSON: %s", sc.Input)
			}
		})
	}
}

func TestStreamToolMarker(t *testing.T) {
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body := `{"model":"m","stream":false,"tools":[{"name":"AskUserQuestion"}],"messages":[{"role":"user","content":"ASK: Why?"}]}`
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Name string
			Input      map[string]any
		} `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.StopReason != "tool_use" || len(m.Content) != 2 || m.Content[1].Name != ToolAsk || m.Content[1].Input["questions"] == nil {
		t.Errorf("reply %+v", m)
	}
	if r := s.Requests(); len(r) != 1 || !strings.HasPrefix(r[0].Reply, "tool:AskUserQuestion {") {
		t.Errorf("recorded %+v", r)
	}
}
