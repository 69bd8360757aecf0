package augment

import (
	"bufio"
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
	return servetest.Post(t, url, body, "Authorization", "Bearer fake-token")
}

// Auggie 0.36.0's launch-process (its description cut) beside view.
const tools = `[{"name":"launch-process","description":"Launch a new process with a shell command.","tool_safety":2,
	"input_schema_json":"{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"},\"wait\":{\"type\":\"boolean\"},\"max_wait_seconds\":{\"type\":\"number\"},\"cwd\":{\"type\":\"string\"},\"keep_stdin_open\":{\"type\":\"boolean\"}},\"required\":[\"command\",\"wait\",\"max_wait_seconds\",\"cwd\"]}"},
	{"name":"view","description":"View a file.","tool_safety":1,"input_schema_json":"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}"}]`

// turn is a chat-stream request in Auggie's shape: the typed text as a
// text node beside the IDE state node, or a tool's result.
func turn(nodes string, silent bool) string {
	s := "false"
	if silent {
		s = "true"
	}
	return `{"model":"","message":"","chat_history":[],"mode":"CLI_AGENT","silent":` + s + `,"conversation_id":"c1","turn_id":"t1",
		"nodes":[` + nodes + `,{"id":2,"type":4,"ide_state_node":{"workspace_folders":[{"repository_root":"/w","folder_root":"/w"}]}}],"tool_definitions":` + tools + `}`
}

func text(s string) string { return `{"id":1,"type":0,"text_node":{"content":` + serve.JSON(s) + `}}` }

// reply is a stream put back together as Auggie does: the text of every
// line, the nodes it keeps, the stop reason.
type reply struct {
	lines int
	text  string
	calls []toolUse
	usage *tokenUse
	cost  *billing
	stop  int
}

func assemble(t *testing.T, resp *http.Response) reply {
	t.Helper()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var r reply
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v: %s", r.lines+1, err, sc.Bytes())
		}
		if r.stop != 0 {
			t.Errorf("line %d after the stop reason", r.lines+1)
		}
		r.lines++
		r.text += l.Text
		for _, n := range l.Nodes {
			switch n.Type {
			case nodeToolUse:
				r.calls = append(r.calls, *n.ToolUse)
			case nodeUsage:
				r.usage = n.TokenUsage
			case nodeBilling:
				r.cost = n.Billing
			}
		}
		r.stop = l.StopReason
	}
	if r.usage == nil || r.stop == 0 {
		t.Errorf("the stream ended with no usage or stop reason: %+v", r)
	}
	return r
}

func TestModels(t *testing.T) {
	s := start(t, Options{})
	servetest.Check(t, s.URL, "POST", "/get-models", "{}", 200, `"enable_hooks":true`)
	servetest.Check(t, s.URL, "POST", "/get-models", "{}", 200, `"model_registry":"{\"Fake Model\":\"fake-model\"}"`)
	servetest.Check(t, s.URL, "POST", "/agents/list-remote-tools", `{"tool_id_list":{"tool_ids":[1]}}`, 200, `{"tools":[]}`)
	servetest.Check(t, s.URL, "POST", "/record-session-events", `{"events":[]}`, 200, `{}`)
	servetest.Check(t, s.URL, "GET", "/get-models", "", 404, "no route")
	s2 := start(t, Options{NoHooks: true})
	resp := post(t, s2.URL+"/get-models", "{}")
	if b, _ := io.ReadAll(resp.Body); strings.Contains(string(b), "enable_hooks") {
		t.Errorf("NoHooks: %s", b)
	}
	if !strings.Contains(s.AuthJSON(), `"tenantURL":"`+s.URL+`/"`) {
		t.Errorf("AuthJSON %s", s.AuthJSON())
	}
}

func TestText(t *testing.T) {
	s := start(t, Options{})
	r := assemble(t, post(t, s.URL+"/chat-stream", turn(text("say hello there"), false)))
	if r.text != "FAKE-REPLY: say hello there" || r.stop != stopEndTurn || len(r.calls) != 0 || r.lines < 3 {
		t.Errorf("got %+v", r)
	}
	if u := r.usage; u.Input <= 0 || u.CacheRead <= 0 || u.Output <= 0 {
		t.Errorf("usage %+v", *u)
	}
	if c := r.cost; c == nil || c.Unit != 2 || c.CostUSD == "" || c.CostUSD == "0.000000" || !strings.HasPrefix(c.Transaction, "txn_") {
		t.Errorf("billing %+v", c)
	}
	rec := s.Requests()[0]
	if rec.Prompt != "say hello there" || rec.Reply != "text" || rec.Tools != 2 || rec.Nodes != 2 || rec.Silent || rec.Status != 200 {
		t.Errorf("recorded %+v", rec)
	}
}

func TestTitle(t *testing.T) {
	s := start(t, Options{})
	r := assemble(t, post(t, s.URL+"/chat-stream", turn(text("Please provide a clear and concise title. RUN: rm -rf x"), true)))
	if r.text != "Fake title" || len(r.calls) != 0 {
		t.Errorf("got %+v", r)
	}
}

func TestShellCallThenResult(t *testing.T) {
	s := start(t, Options{InputTokens: 9000})
	cmd := "echo marker > marker.txt"
	r := assemble(t, post(t, s.URL+"/chat-stream", turn(text("please RUN: "+cmd), false)))
	if len(r.calls) != 1 || r.stop != stopToolUse || r.text != "I will run the command." {
		t.Fatalf("got %+v", r)
	}
	c := r.calls[0]
	var args map[string]any
	if err := json.Unmarshal([]byte(c.Input), &args); err != nil {
		t.Fatal(err)
	}
	if c.Name != "launch-process" || !strings.HasPrefix(c.ID, "toolu_") || args["command"] != cmd || args["wait"] != true ||
		args["max_wait_seconds"] != 30.0 || args["cwd"] != "." || len(args) != 4 {
		t.Errorf("call %+v %v", c, args)
	}
	if u := r.usage; u.Input+u.CacheRead != 9000 || u.CacheRead != 4500 {
		t.Errorf("usage %+v", *u)
	}
	res := `{"id":1,"type":1,"tool_result_node":{"tool_use_id":"` + c.ID + `","content":"Here are the results from executing the command.","is_error":false}}`
	r = assemble(t, post(t, s.URL+"/chat-stream", turn(res, false)))
	if r.text != serve.ToolDone || len(r.calls) != 0 {
		t.Errorf("after the result: %+v", r)
	}
	if log := s.Log(); !strings.Contains(log, "reply=call:launch-process "+cmd) || !strings.Contains(log, `result="Here are the results`) {
		t.Errorf("log:\n%s", log)
	}
}

func TestFailAndSlow(t *testing.T) {
	s := start(t, Options{})
	resp := post(t, s.URL+"/chat-stream", turn(text("FAIL: overloaded"), false))
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(b), "FAKE-FAIL: overloaded") {
		t.Errorf("FAIL: %d %s", resp.StatusCode, b)
	}
	t0 := time.Now()
	r := assemble(t, post(t, s.URL+"/chat-stream", turn(text("wait SLOW:300ms"), false)))
	if d := time.Since(t0); d < 300*time.Millisecond || r.text != "FAKE-REPLY: wait SLOW:300ms" {
		t.Errorf("SLOW: %s %+v", d, r)
	}
}
