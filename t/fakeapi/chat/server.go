// Package chat is a fake OpenAI Chat Completions API on 127.0.0.1 for
// end-to-end tests of the agent CLIs that speak it (opencode, pi, omp,
// Copilot CLI with a provider of its own): give the client a provider
// whose base URL is Server.URL+"/v1" and it runs real turns against a
// model scripted by the prompt text.
//
// Script (markers in the newest user message; package serve):
//
//	RUN: <command>    call the request's shell tool (picked from its
//	                  tools: bash, ...) with {command, description}; once
//	                  the tool result comes back, "FAKE-DONE: tool result
//	                  received"
//	FAIL: <message>   answer 400 with the message
//	SLOW:<duration>   hold the reply that long after its first chunk
//	anything else     a text reply "FAKE-REPLY: ..."
//
// A request without tools (a session title) gets a short text, or an
// object that fits its response_format's json_schema. Every reply reports
// usage (streamed: in a final chunk of its own when stream_options asks
// for include_usage, else in the chunk that finishes), so agents write
// their meters. Every request is recorded; Log renders them for a
// failing test.
package chat

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// Server is one running fake API. Its URL is the base URL (no /v1
// suffix).
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
	Model    string
	Stream   bool
	Usage    bool // stream_options.include_usage
	Tools    int
	Messages int
	Prompt   string // the user text answered, clamped
	Reply    string // "text", "call:bash <cmd>", "error ..."
	Tokens   serve.Usage
	Status   int
}

func (r Request) String() string {
	s := fmt.Sprintf("%s %s %s", r.Time.UTC().Format("15:04:05.000"), r.Method, r.Path)
	if r.Model != "" || r.Messages > 0 {
		s += fmt.Sprintf(" model=%s stream=%t tools=%d msgs=%d", r.Model, r.Stream, r.Tools, r.Messages)
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
	// InputTokens is the prompt_tokens every reply reports (0: estimated
	// from the body at ~4 bytes a token), to drive a context meter.
	InputTokens int64
	// Models are the ids GET /v1/models lists (default: the model ids
	// requests named so far, else "fake-model").
	Models []string
}

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start(opts Options) (*Server, error) {
	base, err := serve.Listen[Request]("fake chat", opts.Trace)
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
	// Clients join paths to the base URL they were given: with or without
	// /v1.
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	switch {
	case path == "/chat/completions" && r.Method == http.MethodPost:
		s.completions(w, r, &rec)
	case path == "/models" && r.Method == http.MethodGet:
		rec.Status = http.StatusOK
		serve.WriteJSON(w, rec.Status, s.models())
	default:
		rec.Status = http.StatusNotFound
		apiError(w, rec.Status, "fake chat: no route for "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request, rec *Request) {
	body, err := s.ReadBody(r)
	if err != nil {
		rec.Status = http.StatusBadRequest
		apiError(w, rec.Status, err.Error())
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Status, rec.Reply = http.StatusBadRequest, "error "+err.Error()
		apiError(w, rec.Status, "fake chat: "+err.Error())
		return
	}
	rec.Model, rec.Stream, rec.Tools, rec.Messages = req.Model, req.Stream, len(req.Tools), len(req.Messages)
	rec.Usage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	sc, tool := plan(&req)
	rec.Prompt, rec.Reply = serve.Clamp(sc.Prompt, 80), sc.Reply(tool.Name)
	if sc.Fail != "" {
		rec.Status = http.StatusBadRequest // not retried: the turn fails at once
		apiError(w, rec.Status, "FAKE-FAIL: "+sc.Fail)
		return
	}
	n := s.Next()
	c := completion{ID: fmt.Sprintf("chatcmpl-fake%06d", n), Object: "chat.completion",
		Created: time.Now().Unix(), Model: req.Model, SystemFingerprint: "fp_fake"}
	msg := message{Role: "assistant"}
	finish := "stop"
	if sc.Command != "" {
		msg.ToolCalls = []toolCall{{ID: fmt.Sprintf("call_fake%06d", n), Type: "function",
			Function: function{Name: tool.Name, Arguments: serve.JSON(tool.ShellArgs(sc.Command))}}}
		finish = "tool_calls"
	} else {
		msg.Content = &sc.Text
	}
	c.Choices = []choice{{Message: &msg, FinishReason: &finish}}
	rec.Tokens = serve.Count(body, s.opts.InputTokens, sc)
	c.Usage = usageOf(rec.Tokens)
	rec.Status = http.StatusOK
	if !req.Stream {
		if s.Sleep(r.Context(), sc.Delay) {
			serve.WriteJSON(w, rec.Status, c)
		}
		return
	}
	s.stream(w, r, c, rec.Usage, sc.Delay)
}

// models lists Options.Models, else every model requested so far, else
// fake-model.
func (s *Server) models() map[string]any {
	ids := s.opts.Models
	if len(ids) == 0 {
		seen := map[string]bool{}
		for _, r := range s.Requests() {
			if r.Model != "" && !seen[r.Model] {
				seen[r.Model] = true
				ids = append(ids, r.Model)
			}
		}
	}
	if len(ids) == 0 {
		ids = []string{"fake-model"}
	}
	data := []any{}
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "fake"})
	}
	return map[string]any{"object": "list", "data": data}
}

func apiError(w http.ResponseWriter, status int, msg string) {
	serve.WriteJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
}
