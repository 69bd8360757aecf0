// Package openai is a fake OpenAI Responses API on 127.0.0.1 for
// end-to-end tests of the real Codex CLI: give Codex a custom model
// provider whose base_url is Server.URL+"/v1" (wire_api = "responses") and
// it runs real turns against a model scripted by the prompt text.
//
// Script (markers in the last user message, see Script):
//
//	RUN: <command>      reply with a shell call (exec_command) asking for
//	                    escalated permissions, so approval_policy
//	                    "on-request" shows the approval prompt; once the
//	                    output comes back, "FAKE-DONE: tool result received"
//	RUNSAFE: <command>  the same call without escalation (runs sandboxed)
//	CALL: <tool> <json> call the offered tool with these arguments
//	                    (request_user_input: Codex's question)
//	PROPOSE: <title>    reply with a <proposed_plan> block (Plan mode)
//	SLOW:<duration>     hold the reply that long after response.created, so
//	                    the agent is observably "working" (SLOW alone = 3s)
//	anything else       a text reply "FAKE-REPLY: ..."
//
// A request without tools (the thread title) gets an object matching its
// json_schema. Every request is recorded; Log renders them for a failing
// test.
package openai

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// Server is one running fake API. Its URL is the base URL (no /v1
// suffix).
type Server struct {
	*serve.Server[Request]
	opts Options
}

// Request is one request the server answered: what every fake records,
// and the Responses API's own.
type Request struct {
	serve.Request
	Items int
	Auth  string // the Authorization header's scheme and first characters
}

func (r Request) String() string { return r.Line(serve.Field("items", r.Items)) }

// Options tune a Server: Trace, InputTokens (the prompt's tokens every
// reply reports); the zero value is fine.
type Options = serve.Options

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start(opts Options) (*Server, error) {
	return serve.Start("fake openai", opts.Trace, func(b *serve.Server[Request]) *Server { return &Server{Server: b, opts: opts} })
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{Request: serve.NewRequest(r), Auth: serve.Clamp(r.Header.Get("Authorization"), 12)}
	defer func() { s.Record(rec) }()
	switch {
	case r.URL.Path == "/v1/responses" && r.Method == http.MethodPost:
		s.responses(w, r, &rec)
	case r.URL.Path == "/v1/models" && r.Method == http.MethodGet:
		rec.Status = http.StatusOK
		serve.WriteJSON(w, rec.Status, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		rec.Status = http.StatusNotFound
		apiError(w, rec.Status, "fake openai: no route for "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req responsesRequest
	body, err := s.Decode(r, &req)
	if err != nil {
		rec.Status = http.StatusBadRequest
		rec.Reply = "error " + err.Error()
		apiError(w, rec.Status, "fake openai: "+err.Error())
		return
	}
	rec.Model, rec.Stream, rec.Tools, rec.Items = req.Model, req.Stream, len(req.Tools), len(req.Input)
	sc := plan(&req)
	rec.Prompt = serve.Clamp(sc.Prompt, 80)
	if sc.Fail != "" {
		// 400: not retried; the turn fails at once.
		rec.Status, rec.Reply = http.StatusBadRequest, "error "+serve.Clamp(sc.Fail, 60)
		apiError(w, rec.Status, "FAKE-FAIL: "+sc.Fail)
		return
	}
	n := s.Next()
	resp := response{ID: fmt.Sprintf("resp_fake%06d", n), Object: "response", Model: req.Model, Status: "completed"}
	if sc.Command != "" {
		name, args := shellTool(req.Tools, sc.Command, !sc.Safe)
		a, _ := json.Marshal(args)
		resp.Output = []item{{Type: "function_call", ID: fmt.Sprintf("fc_fake%06d", n), Status: "completed",
			CallID: fmt.Sprintf("call_fake%06d", n), Name: name, Arguments: string(a)}}
		rec.Reply = "call:" + name + " " + sc.Command
		if !sc.Safe {
			rec.Reply += " escalated"
		}
	} else if sc.Tool != "" {
		args := sc.Args
		if args == "" {
			args = "{}"
		}
		resp.Output = []item{{Type: "function_call", ID: fmt.Sprintf("fc_fake%06d", n), Status: "completed",
			CallID: fmt.Sprintf("call_fake%06d", n), Name: sc.Tool, Arguments: args}}
		rec.Reply = "call:" + sc.Tool
	} else {
		resp.Output = []item{{Type: "message", ID: fmt.Sprintf("msg_fake%06d", n), Status: "completed", Role: "assistant",
			Content: []part{{Type: "output_text", Text: sc.Text, Annotations: []any{}}}}}
		rec.Reply = "text"
	}
	u := serve.Count(body, s.opts.InputTokens, sc)
	resp.Usage = &usage{InputTokens: u.In, InputTokensDetails: tokenDetails{CachedTokens: u.Cached},
		OutputTokens: u.Out, OutputTokensDetails: outDetails{ReasoningTokens: 0}, TotalTokens: u.Total()}
	if sc.Delay > 0 {
		rec.Reply += fmt.Sprintf(" delay=%s", sc.Delay)
	}
	rec.Status = http.StatusOK
	if !req.Stream {
		if s.Sleep(r.Context(), sc.Delay) {
			serve.WriteJSON(w, rec.Status, resp)
		}
		return
	}
	s.stream(w, r, resp, sc.Delay)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	serve.WriteJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}
