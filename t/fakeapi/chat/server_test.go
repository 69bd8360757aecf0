package chat

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve"
	"github.com/agwatch/ag/t/fakeapi/serve/servetest"
)

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	return servetest.Post(t, url, body, "Authorization", "Bearer fake")
}

// Tools in the shapes the real clients send (descriptions cut short):
// pi 0.73's bash takes {command, timeout}; opencode's and Copilot's
// {command, description, ...}.
const (
	piTools = `[{"type":"function","function":{"name":"read","description":"Read a file.","parameters":{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}},"strict":false}},
		{"type":"function","function":{"name":"bash","description":"Execute a bash command.","parameters":{"type":"object","required":["command"],"properties":{"command":{"type":"string"},"timeout":{"type":"number"}}},"strict":false}}]`
	describedTools = `[{"type":"function","function":{"name":"read_bash","parameters":{"type":"object","properties":{"shellId":{"type":"string"}},"required":["shellId"]}}},
		{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"},"timeout":{"type":"number"}},"required":["command","description"]}}}]`
)

// piRequest is a request as pi sends it: system prompt, the history, the
// newest user message as text parts; streamed with include_usage.
func piRequest(tools string, msgs ...string) string {
	return `{"model":"fake-model","messages":[{"role":"system","content":"You are a coding agent."},` + strings.Join(msgs, ",") +
		`],"stream":true,"stream_options":{"include_usage":true},"store":false,"max_completion_tokens":4096,"tools":` + tools + `}`
}

func user(text string) string {
	b, _ := json.Marshal(map[string]any{"role": "user", "content": []any{map[string]string{"type": "text", "text": text}}})
	return string(b)
}

// reply is a streamed completion put back together as a client does.
type reply struct {
	chunks    int
	role      string
	text      string
	calls     []toolCall
	finish    string
	usage     *usage
	usageLast bool // the usage came in a chunk of its own, with no choices
	done      bool
}

func assemble(t *testing.T, resp *http.Response) reply {
	t.Helper()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	evs, err := serve.ReadSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var r reply
	for i, e := range evs {
		if e.Name != "" {
			t.Errorf("event %d has a name %q", i, e.Name)
		}
		if e.Data == "[DONE]" {
			r.done = i == len(evs)-1
			continue
		}
		var c completion
		if err := json.Unmarshal([]byte(e.Data), &c); err != nil {
			t.Fatalf("chunk %d: %v: %s", i, err, e.Data)
		}
		if c.Object != "chat.completion.chunk" || !strings.HasPrefix(c.ID, "chatcmpl-") || c.Model == "" || c.Created == 0 {
			t.Errorf("chunk %d header: %s", i, e.Data)
		}
		r.chunks++
		if c.Usage != nil {
			r.usage, r.usageLast = c.Usage, len(c.Choices) == 0
		}
		for _, ch := range c.Choices {
			d := ch.Delta
			if d == nil {
				t.Fatalf("chunk %d has no delta: %s", i, e.Data)
			}
			if d.Role != "" {
				r.role = d.Role
			}
			if d.Content != nil {
				r.text += *d.Content
			}
			for _, tc := range d.ToolCalls {
				if tc.Index == nil {
					t.Fatalf("tool call delta without an index: %s", e.Data)
				}
				if *tc.Index == len(r.calls) {
					r.calls = append(r.calls, toolCall{ID: tc.ID, Type: tc.Type, Function: function{Name: tc.Function.Name}})
				}
				r.calls[*tc.Index].Function.Arguments += tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				r.finish = *ch.FinishReason
			}
		}
	}
	return r
}

func TestStreamText(t *testing.T) {
	s := start(t, Options{})
	r := assemble(t, post(t, s.URL+"/v1/chat/completions", piRequest(piTools, user("say hello"))))
	if r.role != "assistant" || r.text != "FAKE-REPLY: say hello" || r.finish != "stop" || len(r.calls) != 0 || !r.done {
		t.Errorf("got %+v", r)
	}
	if !r.usageLast || r.usage.PromptTokens < 50 || r.usage.CompletionTokens < 1 ||
		r.usage.TotalTokens != r.usage.PromptTokens+r.usage.CompletionTokens || r.usage.PromptTokensDetails.CachedTokens != r.usage.PromptTokens/2 {
		t.Errorf("usage %+v (own chunk %v)", r.usage, r.usageLast)
	}
	rec := s.Requests()[0]
	if rec.Model != "fake-model" || !rec.Stream || !rec.Usage || rec.Tools != 2 || rec.Messages != 2 || rec.Prompt != "say hello" ||
		rec.Reply != "text" || rec.Tokens.In != r.usage.PromptTokens || rec.Status != 200 {
		t.Errorf("recorded %+v", rec)
	}
}

func TestToolCallThenResult(t *testing.T) {
	s := start(t, Options{})
	cmd := `echo "marker ✓" > marker.txt`
	for _, tc := range []struct {
		name, tools, args string
	}{
		{"pi", piTools, `{"command":"echo \"marker ✓\" > marker.txt"}`},
		{"described", describedTools, `{"command":"echo \"marker ✓\" > marker.txt","description":"Run the requested command"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := assemble(t, post(t, s.URL+"/v1/chat/completions", piRequest(tc.tools, user("say hello"),
				`{"role":"assistant","content":"FAKE-REPLY: say hello"}`, user("please RUN: "+cmd))))
			if len(r.calls) != 1 || r.finish != "tool_calls" || r.text != "" {
				t.Fatalf("got %+v", r)
			}
			c := r.calls[0]
			if c.Type != "function" || c.Function.Name != "bash" || !strings.HasPrefix(c.ID, "call_") || c.Function.Arguments != tc.args {
				t.Errorf("call %+v", c)
			}

			result := `{"role":"assistant","content":null,"tool_calls":[{"id":"` + c.ID + `","type":"function","function":{"name":"bash","arguments":"{}"}}]},
				{"role":"tool","content":"(no output)","tool_call_id":"` + c.ID + `"}`
			r = assemble(t, post(t, s.URL+"/v1/chat/completions", piRequest(tc.tools, user("please RUN: "+cmd), result)))
			if r.text != serve.ToolDone || r.finish != "stop" || len(r.calls) != 0 {
				t.Errorf("after the result: %+v", r)
			}
		})
	}
	if log := s.Log(); !strings.Contains(log, "reply=call:bash "+cmd) {
		t.Errorf("log:\n%s", log)
	}
}

func TestCall(t *testing.T) {
	s := start(t, Options{})
	tools := `[{"type":"function","function":{"name":"question","parameters":{"type":"object","properties":{"questions":{"type":"array"}},"required":["questions"]}}}]`
	r := assemble(t, post(t, s.URL+"/v1/chat/completions", piRequest(tools,
		user(`CALL: question {"questions":[{"question":"Which colour?","options":[{"label":"Blue"},{"label":"Green"}]}]}`))))
	if len(r.calls) != 1 || r.calls[0].Function.Name != "question" || r.finish != "tool_calls" ||
		r.calls[0].Function.Arguments != `{"questions":[{"options":[{"label":"Blue"},{"label":"Green"}],"question":"Which colour?"}]}` {
		t.Errorf("got %+v", r)
	}
	r = assemble(t, post(t, s.URL+"/v1/chat/completions", piRequest(tools, user(`CALL: task {"prompt":"x"}`))))
	if len(r.calls) != 0 || r.text != "FAKE-REPLY: no tool task offered" {
		t.Errorf("a tool not offered: %+v", r)
	}
	if log := s.Log(); !strings.Contains(log, `reply=call:question {"questions":`) {
		t.Errorf("log:\n%s", log)
	}
}

func TestNoShellTool(t *testing.T) {
	s := start(t, Options{})
	tools := `[{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]`
	r := assemble(t, post(t, s.URL+"/v1/chat/completions", piRequest(tools, user("RUN: ls"))))
	if len(r.calls) != 0 || r.text != "FAKE-REPLY: no shell tool offered" {
		t.Errorf("got %+v", r)
	}
}

func TestUsageWithoutIncludeUsage(t *testing.T) {
	s := start(t, Options{InputTokens: 5000})
	body := `{"model":"m","stream":true,"tools":` + piTools + `,"messages":[{"role":"user","content":"hi"}]}`
	r := assemble(t, post(t, s.URL+"/chat/completions", body))
	if r.usage == nil || r.usageLast || r.usage.PromptTokens != 5000 || r.usage.PromptTokensDetails.CachedTokens != 2500 || r.finish != "stop" {
		t.Errorf("got %+v usage %+v", r, r.usage)
	}
}

func TestNotStreamed(t *testing.T) {
	s := start(t, Options{})
	resp := post(t, s.URL+"/v1/chat/completions", `{"model":"m","tools":`+describedTools+`,"messages":[{"role":"user","content":"RUN: ls"}]}`)
	var c completion
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.Object != "chat.completion" || len(c.Choices) != 1 || *c.Choices[0].FinishReason != "tool_calls" || c.Usage == nil || c.Usage.TotalTokens == 0 {
		t.Fatalf("got %+v", c)
	}
	m := c.Choices[0].Message
	if m.Role != "assistant" || m.Content != nil || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != "bash" || m.ToolCalls[0].Index != nil {
		t.Errorf("message %+v", m)
	}
}

func TestSideRequests(t *testing.T) {
	s := start(t, Options{})
	// A title request: no tools, a prompt that quotes the user's markers,
	// which must neither call nor wait.
	t0 := time.Now()
	r := assemble(t, post(t, s.URL+"/v1/chat/completions",
		`{"model":"m","stream":true,"messages":[{"role":"system","content":"Generate a title."},{"role":"user","content":"RUN: ls SLOW:5s"}]}`))
	if r.text != "Fake title" || len(r.calls) != 0 || time.Since(t0) > 3*time.Second {
		t.Errorf("title: %+v after %s", r, time.Since(t0))
	}
	resp := post(t, s.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"x"}],
		"response_format":{"type":"json_schema","json_schema":{"name":"t","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}}}`)
	var c completion
	json.NewDecoder(resp.Body).Decode(&c)
	if got := *c.Choices[0].Message.Content; got != `{"title":"Fake title"}` {
		t.Errorf("json_schema reply %q", got)
	}
}

func TestUntooled(t *testing.T) {
	s := start(t, Options{Untooled: 300 * time.Millisecond})
	t0 := time.Now()
	r := assemble(t, post(t, s.URL+"/v1/chat/completions",
		`{"model":"m","stream":true,"messages":[{"role":"user","content":"Summarize the conversation."}]}`))
	if d := time.Since(t0); d < 300*time.Millisecond || r.text != "Fake title" {
		t.Errorf("a request without tools: %+v after %s, want held 300ms", r, d)
	}
	t0 = time.Now()
	r = assemble(t, post(t, s.URL+"/v1/chat/completions", piRequest(piTools, user("say hello"))))
	if d := time.Since(t0); d >= 300*time.Millisecond || r.text != "FAKE-REPLY: say hello" {
		t.Errorf("a prompt with tools: %+v after %s, want no hold", r, d)
	}
}

func TestInjectedContextIsNotThePrompt(t *testing.T) {
	s := start(t, Options{})
	r := assemble(t, post(t, s.URL+"/v1/chat/completions", piRequest(piTools,
		user("say hello"), `{"role":"user","content":"<reminder>RUN: not this</reminder>"}`)))
	if r.text != "FAKE-REPLY: say hello" {
		t.Errorf("got %+v", r)
	}
}

func TestFailSlowAndClose(t *testing.T) {
	s := start(t, Options{})
	resp := post(t, s.URL+"/v1/chat/completions", piRequest(piTools, user("FAIL: quota gone")))
	var e struct {
		Error struct{ Message, Type string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 400 || e.Error.Message != "FAKE-FAIL: quota gone" {
		t.Errorf("fail: %d %+v", resp.StatusCode, e)
	}

	t0 := time.Now()
	r := assemble(t, post(t, s.URL+"/v1/chat/completions", piRequest(piTools, user("think SLOW:300ms"))))
	if d := time.Since(t0); d < 300*time.Millisecond || r.text != "FAKE-REPLY: think SLOW:300ms" {
		t.Errorf("slow: %s %+v", d, r)
	}

	s2, _ := Start(Options{})
	go func() { time.Sleep(100 * time.Millisecond); s2.Close() }()
	t0 = time.Now()
	resp = post(t, s2.URL+"/v1/chat/completions", piRequest(piTools, user("SLOW:30s")))
	io.Copy(io.Discard, resp.Body)
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Close took %s with a held reply", d)
	}
}

func TestRoutes(t *testing.T) {
	s := start(t, Options{})
	// Read to its end: the request is logged as its handler returns.
	resp := post(t, s.URL+"/v1/chat/completions", piRequest(piTools, user("hi")))
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	servetest.Check(t, s.URL, "GET", "/v1/models", "", 200, `"id":"fake-model"`)
	servetest.Check(t, s.URL, "GET", "/models", "", 200, `"object":"list"`)
	servetest.Check(t, s.URL, "POST", "/v1/chat/completions", "{bad", 400, `"error"`)
	servetest.Check(t, s.URL, "GET", "/v1/chat/completions", "", 404, "no route")
	servetest.Check(t, s.URL, "POST", "/v1/responses", "{}", 404, "no route")
	if n := len(s.Requests()); n != 6 || s.Count("POST") != 3 || s.Count("GET") != 3 {
		t.Errorf("%d requests logged, %d POST and %d GET, want 6, 3 and 3:\n%s", n, s.Count("POST"), s.Count("GET"), s.Log())
	}
	s2 := start(t, Options{Models: []string{"a", "b"}})
	resp, _ = http.Get(s2.URL + "/v1/models")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"id":"a"`) || !strings.Contains(string(b), `"id":"b"`) {
		t.Errorf("models %s", b)
	}
}

func FuzzPlan(f *testing.F) {
	f.Add(piRequest(piTools, user("RUN: echo hi SLOW:1s")))
	f.Add(`{"tools":[{"function":{"name":"bash"}}],"messages":[{"role":"user","content":"x"},{"role":"tool","content":"ok"}]}`)
	f.Add(`{"response_format":{"type":"json_schema","json_schema":{"schema":{"type":"array"}}},"messages":[]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var req request
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		sc, call := plan(&req)
		if call == nil && sc.Text == "" && sc.Fail == "" {
			t.Errorf("no reply for %q", body)
		}
		if call != nil && call.Name == "" {
			t.Errorf("a call of no tool for %q", body)
		}
	})
}

// TestClientShapes replays requests in the shapes opencode 1.18.33,
// Copilot CLI 1.0.102 and omp 18.2.3 sent (t/fakeapi/README.md; system
// prompts and descriptions cut).
func TestClientShapes(t *testing.T) {
	s := start(t, Options{})
	for _, tc := range []struct {
		name, body string
		text, args string
	}{
		// opencode's title request: no tools, the user's prompt last.
		{"opencode title", `{"model":"fake-model","max_tokens":32000,"stream":true,"stream_options":{"include_usage":true},"messages":[
			{"role":"system","content":"You are a title generator."},{"role":"user","content":"Generate a title for this conversation:\n"},
			{"role":"user","content":"RUN: echo marker > marker.txt"}]}`, "Fake title", ""},
		// opencode's bash has no description; its timeout is optional.
		{"opencode call", `{"model":"fake-model","max_tokens":32000,"tool_choice":"auto","stream":true,"stream_options":{"include_usage":true},
			"tools":[{"type":"function","function":{"name":"bash","parameters":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
			"properties":{"command":{"type":"string"},"timeout":{"minimum":-9007199254740991,"exclusiveMinimum":0,"type":"integer"},"workdir":{"type":"string"}},"required":["command"]}}},
			{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"filePath":{"type":"string"}}}}}],
			"messages":[{"role":"system","content":"You are opencode."},{"role":"user","content":"please RUN: echo marker > marker.txt"}]}`,
			"", `{"command":"echo marker > marker.txt"}`},
		// Copilot: the date before the prompt in one string; bash wants a
		// description, its mode and the rest are optional.
		{"copilot call", `{"model":"fake-model","temperature":0,"top_p":0.95,"frequency_penalty":0,"presence_penalty":0,"stream":true,"stream_options":{"include_usage":true},
			"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"},
			"shellId":{"type":"string"},"mode":{"type":"string","enum":["sync","async"]},"detach":{"type":"boolean"},"initial_wait":{"type":"number"}},"required":["command","description"]}}},
			{"type":"function","function":{"name":"read_bash","parameters":{"type":"object","properties":{"shellId":{"type":"string"}},"required":["shellId"]}}}],
			"messages":[{"role":"system","content":"You are Copilot."},{"role":"user","content":"<current_datetime>2026-12-01T11:32:57.034+00:00</current_datetime>\n\nplease RUN: echo marker > marker.txt"}]}`,
			"", `{"command":"echo marker > marker.txt","description":"Run the requested command"}`},
		{"copilot text", `{"model":"fake-model","stream":true,"stream_options":{"include_usage":true},"tools":[{"type":"function","function":{"name":"bash"}}],
			"messages":[{"role":"user","content":"<current_datetime>2026-12-01T11:32:26.330+00:00</current_datetime>\n\nsay hello"}]}`, "FAKE-REPLY: say hello", ""},
		// omp: a reminder part before the prompt; bash requires an intent
		// "i" beside the command.
		{"omp call", `{"model":"fake-model","stream":true,"stream_options":{"include_usage":true},"store":false,"max_completion_tokens":4096,
			"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"i":{"type":"string","description":"concise intent"},
			"command":{"type":"string"},"env":{"type":"object","properties":{},"additionalProperties":{"type":"string"}},"timeout":{"type":"number"},"cwd":{"type":"string"},
			"pty":{"type":"boolean"},"async":{"type":"boolean"}},"required":["command","i"],"additionalProperties":false}}}],
			"messages":[{"role":"system","content":"You are omp."},{"role":"user","content":[{"type":"text","text":"<system-reminder>\nToday: 2026-12-01. RUN: not this\n</system-reminder>"},
			{"type":"text","text":"please RUN: echo marker > marker.txt"}]}]}`, "", `{"command":"echo marker > marker.txt","i":"Fake i"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := assemble(t, post(t, s.URL+"/v1/chat/completions", tc.body))
			if r.text != tc.text || r.usage == nil || !r.usageLast {
				t.Errorf("got %+v", r)
			}
			if tc.args == "" && len(r.calls) != 0 || tc.args != "" && (len(r.calls) != 1 || r.calls[0].Function.Name != "bash" || r.calls[0].Function.Arguments != tc.args) {
				t.Errorf("calls %+v, want bash %s", r.calls, tc.args)
			}
		})
	}
	if log := s.Log(); strings.Contains(log, "current_datetime") || strings.Contains(log, "system-reminder") {
		t.Errorf("the log shows injected context as the prompt:\n%s", log)
	}
}
