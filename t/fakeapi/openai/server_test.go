package openai

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve/servetest"
)

type sseEvent struct {
	name string
	data map[string]any
}

// post sends a Responses request and reads the whole SSE stream.
func post(t *testing.T, s *Server, body string) []sseEvent {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/responses", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer fake")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var evs []sseEvent
	sc := bufio.NewScanner(resp.Body)
	var name string
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "event: "):
			name = strings.TrimPrefix(l, "event: ")
		case strings.HasPrefix(l, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &d); err != nil {
				t.Fatalf("bad data %q: %v", l, err)
			}
			if d["type"] != name {
				t.Errorf("event %q carries type %v", name, d["type"])
			}
			evs = append(evs, sseEvent{name, d})
		}
	}
	return evs
}

// names lists the event names without "response.", runs of one delta
// event shown once with a "+".
func names(evs []sseEvent) string {
	var s []string
	for _, e := range evs {
		n := strings.TrimPrefix(e.name, "response.")
		if k := len(s); k > 0 && strings.HasSuffix(n, ".delta") && strings.TrimSuffix(s[k-1], "+") == n {
			s[k-1] = n + "+"
			continue
		}
		s = append(s, n)
	}
	return strings.Join(s, " ")
}

const tools = `"tools":[{"type":"function","name":"exec_command","parameters":{}},{"type":"function","name":"write_stdin"}]`

func TestShellCallEscalated(t *testing.T) {
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs := post(t, s, `{"model":"fake-model","stream":true,`+tools+`,"input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context><cwd>/x</cwd></environment_context>"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"please RUN: echo marker > marker.txt"}]}]}`)
	want := "created in_progress output_item.added function_call_arguments.delta+ function_call_arguments.done output_item.done completed"
	if got := names(evs); got != want {
		t.Errorf("events:\n%s\nwant\n%s", got, want)
	}
	done := evs[len(evs)-2].data["item"].(map[string]any)
	if done["type"] != "function_call" || done["name"] != "exec_command" || done["call_id"] == "" {
		t.Errorf("item %v", done)
	}
	var args map[string]string
	json.Unmarshal([]byte(done["arguments"].(string)), &args)
	if args["cmd"] != "echo marker > marker.txt" || args["sandbox_permissions"] != "require_escalated" || args["justification"] == "" {
		t.Errorf("args %v", args)
	}
	// The deltas add up to the arguments.
	var joined string
	for _, e := range evs {
		if e.name == "response.function_call_arguments.delta" {
			joined += e.data["delta"].(string)
		}
	}
	if joined != done["arguments"] {
		t.Errorf("deltas %q != %q", joined, done["arguments"])
	}
	usage := evs[len(evs)-1].data["response"].(map[string]any)["usage"].(map[string]any)
	if usage["input_tokens"].(float64) <= 0 || usage["total_tokens"].(float64) != usage["input_tokens"].(float64)+usage["output_tokens"].(float64) {
		t.Errorf("usage %v", usage)
	}
	for i, e := range evs {
		if e.data["sequence_number"].(float64) != float64(i) {
			t.Fatalf("sequence_number %v at %d", e.data["sequence_number"], i)
		}
	}
	if r := s.Requests(); len(r) != 1 || r[0].Reply != "call:exec_command echo marker > marker.txt escalated" || r[0].Prompt != "please RUN: echo marker > marker.txt" {
		t.Errorf("log %s", s.Log())
	}
}

func TestToolOutputGetsFinalText(t *testing.T) {
	s, _ := Start(Options{InputTokens: 5000})
	defer s.Close()
	evs := post(t, s, `{"model":"m","stream":true,`+tools+`,"input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"RUN: ls"}]},
		{"type":"function_call","call_id":"c1","name":"exec_command","arguments":"{}"},
		{"type":"function_call_output","call_id":"c1","output":"ok"}]}`)
	var text string
	for _, e := range evs {
		if e.name == "response.output_text.delta" {
			text += e.data["delta"].(string)
		}
	}
	if text != "FAKE-DONE: tool result received" {
		t.Errorf("text %q (%s)", text, names(evs))
	}
	if !strings.HasPrefix(names(evs), "created in_progress output_item.added content_part.added output_text.delta+ output_text.done") ||
		!strings.HasSuffix(names(evs), "output_text.done content_part.done output_item.done completed") {
		t.Errorf("events %s", names(evs))
	}
	u := evs[len(evs)-1].data["response"].(map[string]any)["usage"].(map[string]any)
	if u["input_tokens"].(float64) != 5000 || u["input_tokens_details"].(map[string]any)["cached_tokens"].(float64) != 2500 {
		t.Errorf("usage %v", u)
	}
}

func TestSideRequestAndOlderTools(t *testing.T) {
	s, _ := Start(Options{})
	defer s.Close()
	evs := post(t, s, `{"model":"m","stream":true,"tools":[],"text":{"format":{"type":"json_schema","name":"t","schema":{"required":["title"]}}},
		"input":[{"type":"message","role":"user","content":"RUN: rm -rf /"}]}`)
	item := evs[len(evs)-2].data["item"].(map[string]any)
	if c := item["content"].([]any)[0].(map[string]any)["text"]; c != `{"title":"Fake title"}` {
		t.Errorf("side reply %v", c)
	}
	evs = post(t, s, `{"model":"m","stream":true,"tools":[{"type":"function","name":"shell"}],
		"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"RUNSAFE: ls -la"}]}]}`)
	item = evs[len(evs)-2].data["item"].(map[string]any)
	if item["name"] != "shell" || item["arguments"] != `{"command":["bash","-lc","ls -la"]}` {
		t.Errorf("older shell call %v", item)
	}
}

func TestSlowAndClose(t *testing.T) {
	s, _ := Start(Options{})
	start := time.Now()
	evs := post(t, s, `{"model":"m","stream":true,`+tools+`,"input":[{"type":"message","role":"user","content":"hi SLOW:300ms"}]}`)
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("reply after %v; want ≥300ms", d)
	}
	if !strings.HasSuffix(names(evs), "completed") {
		t.Errorf("events %s", names(evs))
	}
	// A long delay is cut short by Close.
	go func() {
		time.Sleep(100 * time.Millisecond)
		s.Close()
	}()
	start = time.Now()
	resp, err := http.Post(s.URL+"/v1/responses", "application/json",
		strings.NewReader(`{"model":"m","stream":true,`+tools+`,"input":[{"type":"message","role":"user","content":"SLOW:30s"}]}`))
	if err == nil {
		resp.Body.Close()
	}
	if time.Since(start) > 5*time.Second {
		t.Error("Close did not end a slow reply")
	}
}

func TestErrors(t *testing.T) {
	s, _ := Start(Options{})
	defer s.Close()
	servetest.Check(t, s.URL, "POST", "/v1/responses", "{bad", 400, "fake openai")
	servetest.Check(t, s.URL, "GET", "/v1/nothing", "", 404, "no route")
	servetest.Check(t, s.URL, "GET", "/v1/models", "", 200, `"object":"list"`)
	if !strings.Contains(s.Log(), "-> 404") {
		t.Errorf("log %s", s.Log())
	}
}

// TestCallAndPropose: CALL: calls the named tool with its arguments
// (Codex's request_user_input); PROPOSE: replies with a <proposed_plan>.
func TestCallAndPropose(t *testing.T) {
	s, _ := Start(Options{})
	defer s.Close()
	evs := post(t, s, `{"model":"m","stream":true,`+tools+`,"input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"CALL: request_user_input {\"questions\":[]}"}]}]}`)
	var call map[string]any
	for _, e := range evs {
		if e.name == "response.output_item.done" {
			call = e.data["item"].(map[string]any)
		}
	}
	if call["type"] != "function_call" || call["name"] != "request_user_input" || call["arguments"] != `{"questions":[]}` {
		t.Errorf("CALL: %v", call)
	}
	evs = post(t, s, `{"model":"m","stream":true,`+tools+`,"input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"PROPOSE: Add a greeting"}]}]}`)
	var text string
	for _, e := range evs {
		if e.name == "response.output_text.delta" {
			text += e.data["delta"].(string)
		}
	}
	if !strings.HasPrefix(text, "<proposed_plan>\n# Add a greeting\n") || !strings.HasSuffix(text, "</proposed_plan>") {
		t.Errorf("PROPOSE: %q", text)
	}
}
