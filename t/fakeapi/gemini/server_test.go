package gemini

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
	return servetest.Post(t, url, body, "x-goog-api-key", "fake")
}

const (
	mainPath   = "/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse"
	routerPath = "/v1beta/models/gemini-3.5-flash-lite:generateContent"
	// Gemini CLI 0.61's shell tool (descriptions cut short) beside another.
	tools = `[{"functionDeclarations":[{"name":"read_file","parametersJsonSchema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}},
		{"name":"run_shell_command","description":"This tool executes a given shell command as bash -c <command>.","parametersJsonSchema":{"type":"object",
		"properties":{"command":{"type":"string"},"description":{"type":"string"},"dir_path":{"type":"string"},"is_background":{"type":"boolean"},"delay_ms":{"type":"integer"}},"required":["command"]}}]}]`
	// The first user content: the CLI's context, then what was typed.
	context0 = `{"role":"user","parts":[{"text":"<session_context>\nThis is the Gemini CLI. RUN: not this\n</session_context>"},{"text":"%s"}]}`
)

// turn is a main-turn request in Gemini CLI's shape.
func turn(contents ...string) string {
	return `{"contents":[` + strings.Join(contents, ",") + `],"systemInstruction":{"parts":[{"text":"You are Gemini CLI."}]},
		"tools":` + tools + `,"generationConfig":{"temperature":1,"topP":0.95,"topK":64,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"HIGH"}}}`
}

func first(text string) string { return strings.Replace(context0, "%s", text, 1) }

// reply is a streamed response put back together as the CLI does.
type reply struct {
	chunks int
	text   string
	calls  []functionCall
	finish string
	usage  *usage
	model  string
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
		var c response
		if err := json.Unmarshal([]byte(e.Data), &c); err != nil || e.Name != "" || len(c.Candidates) != 1 {
			t.Fatalf("chunk %d: %v: %q %s", i, err, e.Name, e.Data)
		}
		if r.finish != "" {
			t.Errorf("chunk %d after the finish reason", i)
		}
		r.chunks++
		r.model = c.ModelVersion
		if c.Usage != nil {
			r.usage = c.Usage
		}
		cand := c.Candidates[0]
		if cand.Content.Role != "model" {
			t.Errorf("chunk %d role %q", i, cand.Content.Role)
		}
		for _, p := range cand.Content.Parts {
			r.text += p.Text
			if p.FunctionCall != nil {
				r.calls = append(r.calls, *p.FunctionCall)
			}
		}
		r.finish = cand.FinishReason
	}
	if r.usage == nil || r.finish == "" {
		t.Errorf("the stream ended with no finish reason or usage: %+v", r)
	}
	return r
}

func TestStreamText(t *testing.T) {
	s := start(t, Options{})
	r := assemble(t, post(t, s.URL+mainPath, turn(first("say hello"))))
	if r.text != "FAKE-REPLY: say hello" || r.finish != "STOP" || len(r.calls) != 0 || r.chunks < 2 || r.model != "gemini-3.1-pro-preview" {
		t.Errorf("got %+v", r)
	}
	u := r.usage
	if u.PromptTokenCount < 50 || u.CandidatesTokenCount < 1 || u.TotalTokenCount != u.PromptTokenCount+u.CandidatesTokenCount ||
		u.CachedContentTokenCount != u.PromptTokenCount/2 {
		t.Errorf("usage %+v", u)
	}
	rec := s.Requests()[0]
	if rec.Model != "gemini-3.1-pro-preview" || rec.RPC != "streamGenerateContent" || rec.Tools != 2 || rec.Contents != 1 ||
		rec.Prompt != "say hello" || rec.Reply != "text" || rec.Tokens.In != u.PromptTokenCount || rec.Status != 200 {
		t.Errorf("recorded %+v", rec)
	}
}

func TestShellCallThenResponse(t *testing.T) {
	s := start(t, Options{InputTokens: 9000})
	cmd := "echo marker > marker.txt"
	r := assemble(t, post(t, s.URL+mainPath, turn(first("say hello"), `{"role":"model","parts":[{"text":"FAKE-REPLY: say hello"}]}`,
		`{"role":"user","parts":[{"text":"please RUN: `+cmd+`"}]}`)))
	if len(r.calls) != 1 || r.finish != "STOP" {
		t.Fatalf("got %+v", r)
	}
	c := r.calls[0]
	if c.Name != "run_shell_command" || c.Args["command"] != cmd || c.Args["description"] != serve.ShellDescription || len(c.Args) != 2 {
		t.Errorf("call %+v", c)
	}
	if r.usage.PromptTokenCount != 9000 || r.usage.CachedContentTokenCount != 4500 {
		t.Errorf("usage %+v", r.usage)
	}
	// The CLI sends the call back with its own id and a thought signature,
	// then the function's response.
	r = assemble(t, post(t, s.URL+mainPath, turn(`{"role":"user","parts":[{"text":"please RUN: `+cmd+`"}]}`,
		`{"role":"model","parts":[{"text":"I will run the command."}]}`,
		`{"role":"model","parts":[{"functionCall":{"id":"run_shell_command_1_0","name":"run_shell_command","args":{"command":"x"}},"thoughtSignature":"skip_thought_signature_validator"}]}`,
		`{"role":"user","parts":[{"functionResponse":{"id":"run_shell_command_1_0","name":"run_shell_command","response":{"output":"Output: (empty)"}}}]}`)))
	if r.text != serve.ToolDone || len(r.calls) != 0 {
		t.Errorf("after the response: %+v", r)
	}
	if log := s.Log(); !strings.Contains(log, "reply=call:run_shell_command "+cmd) {
		t.Errorf("log:\n%s", log)
	}
}

func TestCall(t *testing.T) {
	s := start(t, Options{})
	r := assemble(t, post(t, s.URL+mainPath, turn(first(`CALL: read_file {\"file_path\":\"a.txt\"}`))))
	if r.text != "I will call read_file." || len(r.calls) != 1 || r.calls[0].Name != "read_file" || r.calls[0].Args["file_path"] != "a.txt" {
		t.Errorf("got %+v", r)
	}
}

func TestJSONMode(t *testing.T) {
	s := start(t, Options{})
	for _, tc := range []struct{ name, config, want string }{
		// Gemini CLI 0.61's numerical router: its own check wants a score
		// of 1 to 100, which the schema does not say.
		{"router", `"responseMimeType":"application/json","responseJsonSchema":{"type":"OBJECT","properties":{"complexity_reasoning":{"type":"STRING"},
			"complexity_score":{"type":"INTEGER","description":"Complexity score from 1-100."}},"required":["complexity_reasoning","complexity_score"]}`,
			`{"complexity_reasoning":"Fake complexity_reasoning","complexity_score":1}`},
		// The next-speaker check: "user" is first, so the turn ends.
		{"next speaker", `"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"reasoning":{"type":"string"},
			"next_speaker":{"type":"string","enum":["user","model"]}},"required":["reasoning","next_speaker"]}`,
			`{"next_speaker":"user","reasoning":"Fake reasoning"}`},
		{"responseSchema", `"responseMimeType":"application/json","responseSchema":{"type":"OBJECT","properties":{"ok":{"type":"BOOLEAN"}}}`, `{"ok":false}`},
		{"no schema", `"responseMimeType":"application/json"`, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, s.URL+routerPath, `{"contents":[{"role":"user","parts":[{"text":"RUN: ls SLOW:5s"}]}],"generationConfig":{`+tc.config+`}}`)
			var c response
			if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
				t.Fatal(err)
			}
			if len(c.Candidates) != 1 || c.Candidates[0].Content.Parts[0].Text != tc.want || c.Candidates[0].FinishReason != "STOP" || c.Usage == nil {
				t.Errorf("got %+v, want %s", c, tc.want)
			}
		})
	}
	if r := s.Requests()[0]; !r.JSON || r.Reply != "json" || r.RPC != "generateContent" || r.Model != "gemini-3.5-flash-lite" {
		t.Errorf("recorded %+v", r)
	}
}

func TestSideRequestAndCountTokens(t *testing.T) {
	s := start(t, Options{})
	// The session summary: no tools, no schema.
	resp := post(t, s.URL+routerPath, `{"contents":[{"role":"user","parts":[{"text":"Summarize the user's primary intent. RUN: ls"}]}],"generationConfig":{}}`)
	var c response
	json.NewDecoder(resp.Body).Decode(&c)
	if got := c.Candidates[0].Content.Parts[0].Text; got != "Fake title" {
		t.Errorf("summary %q", got)
	}
	resp = post(t, s.URL+"/v1beta/models/gemini-3.1-pro-preview:countTokens", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	var n map[string]int
	json.NewDecoder(resp.Body).Decode(&n)
	if resp.StatusCode != 200 || n["totalTokens"] < 1 {
		t.Errorf("countTokens %d %v", resp.StatusCode, n)
	}
}

func TestFailSlowAndClose(t *testing.T) {
	s := start(t, Options{})
	resp := post(t, s.URL+mainPath, turn(first("FAIL: quota gone")))
	var e struct {
		Error struct {
			Code            int
			Message, Status string
		}
	}
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 400 || e.Error.Code != 400 || e.Error.Status != "INVALID_ARGUMENT" || e.Error.Message != "FAKE-FAIL: quota gone" {
		t.Errorf("fail: %d %+v", resp.StatusCode, e)
	}

	t0 := time.Now()
	r := assemble(t, post(t, s.URL+mainPath, turn(first("think SLOW:300ms"))))
	if d := time.Since(t0); d < 300*time.Millisecond || r.text != "FAKE-REPLY: think SLOW:300ms" {
		t.Errorf("slow: %s %+v", d, r)
	}

	s2, _ := Start(Options{})
	go func() { time.Sleep(100 * time.Millisecond); s2.Close() }()
	t0 = time.Now()
	resp = post(t, s2.URL+mainPath, turn(first("SLOW:30s")))
	io.Copy(io.Discard, resp.Body)
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Close took %s with a held reply", d)
	}
}

func TestRoutes(t *testing.T) {
	s := start(t, Options{})
	servetest.Check(t, s.URL, "POST", "/v1beta/models/m:generateContent", "{bad", 400, "INVALID_ARGUMENT")
	servetest.Check(t, s.URL, "POST", "/v1/models/m:generateContent", `{"contents":[]}`, 200, `"candidates"`)
	servetest.Check(t, s.URL, "POST", "/v1beta/models/m:embedContent", "{}", 404, "no method embedContent")
	servetest.Check(t, s.URL, "GET", "/v1beta/models/m:generateContent", "", 404, "NOT_FOUND")
	servetest.Check(t, s.URL, "POST", "/v1beta/models/:generateContent", "{}", 404, "no route")
	servetest.Check(t, s.URL, "POST", "/v1/chat/completions", "{}", 404, "no route")
	if n := len(s.Requests()); n != 6 {
		t.Errorf("%d requests logged:\n%s", n, s.Log())
	}
}

func TestRoute(t *testing.T) {
	for path, want := range map[string][2]string{
		"/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent": {"gemini-3.1-pro-preview", "streamGenerateContent"},
		"/v1/models/a:b:countTokens":                                  {"a:b", "countTokens"},
		"/v1beta/models/x":                                            {"", ""},
		"/models":                                                     {"", ""},
	} {
		if m, r := route(path); m != want[0] || r != want[1] {
			t.Errorf("route(%q) = %q, %q", path, m, r)
		}
	}
}

func FuzzPlan(f *testing.F) {
	f.Add(turn(first("RUN: echo hi SLOW:1s")))
	f.Add(`{"contents":[{"parts":[{"functionResponse":{}}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`)
	f.Add(`{"generationConfig":{"responseJsonSchema":{"type":"OBJECT","properties":{"n":{"type":"INTEGER"}}}}}`)
	f.Fuzz(func(t *testing.T, body string) {
		var req request
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		sc, call, isJSON := plan(&req, req.declarations())
		if call == nil && sc.Text == "" && sc.Fail == "" {
			t.Errorf("no reply for %q", body)
		}
		if call != nil && (call.Name == "" || isJSON) {
			t.Errorf("a call of no tool for %q", body)
		}
		if isJSON && !json.Valid([]byte(sc.Text)) {
			t.Errorf("JSON mode reply %q", sc.Text)
		}
	})
}
