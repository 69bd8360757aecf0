// Package augment is a fake Augment backend on 127.0.0.1 for end-to-end
// tests of the real Auggie CLI. Auggie talks to its tenant, not to a model
// API: give it AUGMENT_SESSION_AUTH with Server.URL+"/" as the tenantURL
// and any access token, and it runs real turns against a model scripted by
// the prompt text.
//
// Script (markers in the newest user text; package serve):
//
//	RUN: <command>    call launch-process (picked from the tools by shape)
//	                  with {command, wait: true, max_wait_seconds, cwd: "."};
//	                  once the tool result comes back, "FAKE-DONE: tool
//	                  result received"
//	CALL: <tool> <json> call the offered tool with those arguments
//	FAIL: <message>   answer 400 with the message
//	SLOW:<duration>   hold the reply that long after its first line
//	anything else     a text reply "FAKE-REPLY: ..."
//
// A silent request (the session's title) gets a short text and never a
// call. /get-models answers one model, fake-model, in a model registry
// (so `auggie -m fake-model` and /model take it, and the session file
// names it), with the feature flag that lets Auggie run hooks
// (enable_hooks); the tools and MCP lookups answer empty lists; the
// telemetry Auggie posts is answered {} and recorded. Every reply ends
// with what it cost (a billing node, in dollars) and its token usage, so
// the session file has meters.
package augment

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// Server is one running fake backend. Its URL is the tenant URL, less the
// trailing slash Auggie wants.
type Server struct {
	*serve.Server[Request]
	opts Options
}

// Request is one request the server answered: what every fake records,
// and Augment's own.
type Request struct {
	serve.Request
	Silent bool   // a side request (the title), not the user's turn
	Nodes  int    // request nodes
	Result string // the tool result sent back, clamped
	Tokens serve.Usage
}

func (r Request) String() string {
	result := ""
	if r.Result != "" {
		result = fmt.Sprintf("result=%q", serve.Clamp(r.Result, 80))
	}
	return r.Line(serve.Field("silent", r.Silent), serve.Field("nodes", r.Nodes), r.Tokens.Field(), result)
}

// Options tune a Server; the zero value is fine.
type Options struct {
	// Trace, when set, receives every request body, one line each.
	Trace io.Writer
	// InputTokens is the input every reply reports, cached tokens
	// included (0: ~4 bytes of the request body a token).
	InputTokens int64
	// NoHooks leaves the enable_hooks feature flag out: Auggie then runs
	// no hooks at all, whatever its settings say.
	NoHooks bool
}

// Model is the one model the fake offers.
const Model = "fake-model"

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start(opts Options) (*Server, error) {
	return serve.Start("fake augment", opts.Trace, func(b *serve.Server[Request]) *Server { return &Server{Server: b, opts: opts} })
}

// AuthJSON is the AUGMENT_SESSION_AUTH that points Auggie at the fake.
func (s *Server) AuthJSON() string {
	return serve.JSON(map[string]any{"accessToken": "fake-token", "tenantURL": s.URL + "/", "scopes": []string{"read", "write"}})
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{Request: serve.NewRequest(r)}
	defer func() { s.Record(rec) }()
	if r.Method != http.MethodPost {
		rec.Status = http.StatusNotFound
		apiError(w, rec.Status, "fake augment: no route for "+r.Method+" "+r.URL.Path)
		return
	}
	switch strings.TrimPrefix(r.URL.Path, "/") {
	case "chat-stream":
		s.chat(w, r, &rec)
	case "get-models":
		s.ReadBody(r)
		rec.Status = http.StatusOK
		serve.WriteJSON(w, rec.Status, s.models())
	case "agents/list-remote-tools":
		s.ReadBody(r)
		rec.Status = http.StatusOK
		serve.WriteJSON(w, rec.Status, map[string]any{"tools": []any{}})
	default:
		// Telemetry, MCP settings, indexing: acknowledged, nothing more.
		s.ReadBody(r)
		rec.Status = http.StatusOK
		serve.WriteJSON(w, rec.Status, map[string]any{})
	}
}

// models is /get-models: the one model, and the feature flags Auggie
// needs to run as a user's would (hooks).
func (s *Server) models() map[string]any {
	// The model registry names the model the turns run on: Auggie then
	// sends it in every chat-stream and records it in the session file.
	flags := map[string]any{
		"enable_model_registry": true,
		"model_registry":        serve.JSON(map[string]string{"Fake Model": Model}),
		"model_info_registry":   serve.JSON(map[string]any{Model: map[string]any{"displayName": "Fake Model", "shortName": "fake"}}),
		"agent_chat_model":      Model,
	}
	if !s.opts.NoHooks {
		flags["enable_hooks"] = true
	}
	return map[string]any{
		"default_model": Model,
		"models":        []any{map[string]any{"name": Model, "suggested_prefix_char_count": 0, "suggested_suffix_char_count": 0}},
		"languages":     []any{},
		"feature_flags": flags,
	}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req request
	body, err := s.Decode(r, &req)
	if err != nil {
		rec.Status, rec.Reply = http.StatusBadRequest, "error "+err.Error()
		apiError(w, rec.Status, "fake augment: "+err.Error())
		return
	}
	rec.Model, rec.Stream, rec.Tools, rec.Silent, rec.Nodes = req.Model, true, len(req.Tools), req.Silent, len(req.Nodes)
	rec.Result = serve.Clamp(req.result(), 500)
	sc, call := plan(&req)
	rec.Prompt, rec.Reply = serve.Clamp(sc.Prompt, 80), sc.Reply(call)
	if sc.Fail != "" {
		rec.Status = http.StatusBadRequest
		apiError(w, rec.Status, "FAKE-FAIL: "+sc.Fail)
		return
	}
	rec.Tokens = serve.Count(body, s.opts.InputTokens, sc)
	rec.Status = http.StatusOK
	s.stream(w, r, sc, call, rec.Tokens)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	serve.WriteJSON(w, status, map[string]any{"error": msg, "message": msg})
}
