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
//	CALL: <tool> <json> call the offered tool with those arguments (a
//	                  question, a sub-agent, a plan)
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

// Request is one request the server answered: what every fake records,
// and Chat Completions' own.
type Request struct {
	serve.Request
	Messages int
	Usage    bool // stream_options.include_usage
	Tokens   serve.Usage
}

func (r Request) String() string {
	return r.Line(serve.Field("msgs", r.Messages), serve.Field("include_usage", r.Usage), r.Tokens.Field())
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
	// Untooled holds each reply to a request that offers no tools (a
	// title, a compaction's summary) this long, so that what the agent
	// shows meanwhile can be seen.
	Untooled time.Duration
}

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start(opts Options) (*Server, error) {
	return serve.Start("fake chat", opts.Trace, func(b *serve.Server[Request]) *Server { return &Server{Server: b, opts: opts} })
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{Request: serve.NewRequest(r)}
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
	var req request
	body, err := s.Decode(r, &req)
	if err != nil {
		rec.Status, rec.Reply = http.StatusBadRequest, "error "+err.Error()
		apiError(w, rec.Status, "fake chat: "+err.Error())
		return
	}
	rec.Model, rec.Stream, rec.Tools, rec.Messages = req.Model, req.Stream, len(req.Tools), len(req.Messages)
	rec.Usage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	sc, call := plan(&req)
	if len(req.Tools) == 0 && s.opts.Untooled > sc.Delay {
		sc.Delay = s.opts.Untooled
	}
	rec.Prompt, rec.Reply = serve.Clamp(sc.Prompt, 80), sc.Reply(call)
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
	if call != nil {
		msg.ToolCalls = []toolCall{{ID: fmt.Sprintf("call_fake%06d", n), Type: "function",
			Function: function{Name: call.Name, Arguments: serve.JSON(call.Args)}}}
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
