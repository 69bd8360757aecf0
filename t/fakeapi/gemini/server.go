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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// Server is one running fake API. Its URL is the base URL for
// GOOGLE_GEMINI_BASE_URL (no /v1beta suffix).
type Server struct {
	*serve.Server[Request]
	opts Options
}

// Request is one request the server answered.
type Request struct {
	Time     time.Time
	Method   string
	Path     string
	Agent    string // User-Agent
	Model    string // from the path
	RPC      string // generateContent, streamGenerateContent, countTokens, ...
	JSON     bool   // JSON mode: answered from the schema
	Tools    int    // function declarations offered
	Contents int
	Prompt   string // the user text answered, clamped
	Reply    string // "text", "json", "call:run_shell_command <cmd>", "error ..."
	Tokens   serve.Usage
	Status   int
}

func (r Request) String() string {
	s := fmt.Sprintf("%s %s %s", r.Time.UTC().Format("15:04:05.000"), r.Method, r.Path)
	if r.Contents > 0 {
		s += fmt.Sprintf(" tools=%d contents=%d", r.Tools, r.Contents)
	}
	if r.Prompt != "" {
		s += fmt.Sprintf(" prompt=%q", r.Prompt)
	}
	if r.Reply != "" {
		s += " reply=" + r.Reply
	}
	if r.Tokens != (serve.Usage{}) {
		s += fmt.Sprintf(" usage=in:%d,cached:%d,out:%d", r.Tokens.In, r.Tokens.Cached, r.Tokens.Out)
	}
	return s + fmt.Sprintf(" -> %d", r.Status)
}

// Options tune a Server; the zero value is fine.
type Options struct {
	// Trace, when set, receives every request body, one line each.
	Trace io.Writer
	// InputTokens is the promptTokenCount every reply reports (0:
	// estimated from the body at ~4 bytes a token), to drive a context
	// meter.
	InputTokens int64
}

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start(opts Options) (*Server, error) {
	base, err := serve.Listen[Request]("fake gemini", opts.Trace)
	if err != nil {
		return nil, err
	}
	s := &Server{Server: base, opts: opts}
	base.Serve(s)
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{Time: time.Now(), Method: r.Method, Path: r.URL.RequestURI(), Agent: r.UserAgent()}
	defer func() { s.Record(rec) }()
	rec.Model, rec.RPC = route(r.URL.Path)
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
	body, err := s.ReadBody(r)
	if err != nil {
		rec.Status = http.StatusBadRequest
		apiError(w, rec.Status, "INVALID_ARGUMENT", err.Error())
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Status, rec.Reply = http.StatusBadRequest, "error "+err.Error()
		apiError(w, rec.Status, "INVALID_ARGUMENT", "fake gemini: "+err.Error())
		return
	}
	tools := req.declarations()
	rec.Tools, rec.Contents = len(tools), len(req.Contents)
	sc, tool, isJSON := plan(&req, tools)
	rec.JSON = isJSON
	rec.Prompt, rec.Reply = serve.Clamp(sc.Prompt, 80), sc.Reply(tool.Name)
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
	if sc.Command != "" {
		parts = []part{{Text: "I will run the command."},
			{FunctionCall: &functionCall{Name: tool.Name, Args: tool.ShellArgs(sc.Command)}}}
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
