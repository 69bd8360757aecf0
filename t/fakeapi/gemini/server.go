// Package gemini is a fake Gemini API on 127.0.0.1 for end-to-end tests
// of the real Gemini CLI: set GOOGLE_GEMINI_BASE_URL to Server.URL (and
// a GEMINI_API_KEY) and the CLI runs real turns against a model scripted
// by the prompt text.
//
// Script (markers in the newest user message; package serve):
//
//	RUN: <command>    call the request's shell tool (picked from its
//	                  function declarations: run_shell_command) with
//	                  {command, description}; once the function response
//	                  comes back, "FAKE-DONE: tool result received"
//	CALL: <fn> <json> call the offered function with those arguments
//	                  (ask_user, invoke_agent, ...)
//	FAIL: <message>   answer 400 INVALID_ARGUMENT with the message
//	SLOW:<duration>   hold the reply that long after its first chunk
//	anything else     a text reply "FAKE-REPLY: ..."
//
// A request in JSON mode (the CLI's model router, its next-speaker check)
// gets an object that fits its responseJsonSchema or responseSchema,
// whatever the prompt says; one without function declarations gets a
// short text. Every reply carries usageMetadata. countTokens is answered
// too. Every request is recorded; Log renders them for a failing test.
package gemini

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// Server is one running fake API. Its URL is the base URL for
// GOOGLE_GEMINI_BASE_URL (no /v1beta suffix).
type Server struct {
	*serve.Server[Request]
	opts Options
}

// Request is one request the server answered: what every fake records
// (its Model from the path), and the Gemini API's own.
type Request struct {
	serve.Request
	RPC      string // generateContent, streamGenerateContent, countTokens, ...
	JSON     bool   // JSON mode: answered from the schema
	Contents int
	Tokens   serve.Usage
}

func (r Request) String() string {
	return r.Line(serve.Field("rpc", r.RPC), serve.Field("json", r.JSON), serve.Field("contents", r.Contents), r.Tokens.Field())
}

// Options tune a Server: Trace, InputTokens (the prompt's tokens every
// reply reports); the zero value is fine.
type Options = serve.Options

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start(opts Options) (*Server, error) {
	return serve.Start("fake gemini", opts.Trace, func(b *serve.Server[Request]) *Server { return &Server{Server: b, opts: opts} })
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{Request: serve.NewRequest(r)}
	defer func() { s.Record(rec) }()
	rec.Model, rec.RPC = route(r.URL.Path)
	rec.Stream = rec.RPC == "streamGenerateContent"
	switch {
	case r.Method != http.MethodPost || rec.Model == "":
		rec.Status = http.StatusNotFound
		apiError(w, rec.Status, "NOT_FOUND", "fake gemini: no route for "+r.Method+" "+r.URL.Path)
	case rec.RPC == "generateContent" || rec.RPC == "streamGenerateContent":
		s.generate(w, r, &rec)
	case rec.RPC == "countTokens":
		body, _ := s.ReadBody(r)
		rec.Status = http.StatusOK
		serve.WriteJSON(w, rec.Status, map[string]int64{"totalTokens": int64(len(body)/4 + 1)})
	default:
		rec.Status = http.StatusNotFound
		apiError(w, rec.Status, "NOT_FOUND", "fake gemini: no method "+rec.RPC)
	}
}

// route splits /v1beta/models/<model>:<rpc> (any API version).
func route(path string) (model, rpc string) {
	_, rest, ok := strings.Cut(strings.TrimPrefix(path, "/"), "/models/")
	if !ok {
		return "", ""
	}
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 {
		return "", ""
	}
	return rest[:i], rest[i+1:]
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req request
	body, err := s.Decode(r, &req)
	if err != nil {
		rec.Status, rec.Reply = http.StatusBadRequest, "error "+err.Error()
		apiError(w, rec.Status, "INVALID_ARGUMENT", "fake gemini: "+err.Error())
		return
	}
	tools := req.declarations()
	rec.Tools, rec.Contents = len(tools), len(req.Contents)
	sc, call, isJSON := plan(&req, tools)
	rec.JSON = isJSON
	rec.Prompt, rec.Reply = serve.Clamp(sc.Prompt, 80), sc.Reply(call)
	if isJSON {
		rec.Reply = "json"
	}
	if sc.Fail != "" {
		rec.Status = http.StatusBadRequest // not retried: the turn fails at once
		apiError(w, rec.Status, "INVALID_ARGUMENT", "FAKE-FAIL: "+sc.Fail)
		return
	}
	n := s.Next()
	var parts []part
	if call != nil {
		lead := "I will call " + call.Name + "."
		if sc.Command != "" {
			lead = "I will run the command."
		}
		parts = []part{{Text: lead}, {FunctionCall: &functionCall{Name: call.Name, Args: call.Args}}}
	} else {
		parts = []part{{Text: sc.Text}}
	}
	rec.Tokens = serve.Count(body, s.opts.InputTokens, sc)
	resp := response{ResponseID: fmt.Sprintf("fake%06d", n), ModelVersion: rec.Model,
		Candidates: []candidate{{Content: content{Role: "model", Parts: parts}, FinishReason: "STOP"}},
		Usage:      usageOf(rec.Tokens)}
	rec.Status = http.StatusOK
	if rec.RPC == "generateContent" {
		if s.Sleep(r.Context(), sc.Delay) {
			serve.WriteJSON(w, rec.Status, resp)
		}
		return
	}
	s.stream(w, r, resp, sc.Delay)
}

func apiError(w http.ResponseWriter, code int, status, msg string) {
	serve.WriteJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
}
