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
//	SLOW:<duration>     hold the reply that long after response.created, so
//	                    the agent is observably "working" (SLOW alone = 3s)
//	anything else       a text reply "FAKE-REPLY: ..."
//
// A request without tools (the thread title) gets an object matching its
// json_schema. Every request is recorded; Log renders them for a failing
// test.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Server is one running fake API.
type Server struct {
	// URL is the server's base URL (no /v1 suffix).
	URL string

	ln   net.Listener
	http *http.Server
	done chan struct{}
	quit chan struct{} // ends slow replies at Close
	opts Options

	mu   sync.Mutex
	reqs []Request
	seq  int
}

// Request is one request the server answered.
type Request struct {
	Time   time.Time
	Method string
	Path   string
	Model  string
	Stream bool
	Tools  int
	Items  int
	Auth   string // the Authorization header's scheme and first characters
	Prompt string // last user text, clamped
	Reply  string // "text", "call:exec_command <cmd> escalated", "error ..."
	Status int
}

func (r Request) String() string {
	s := fmt.Sprintf("%s %s %s", r.Time.UTC().Format("15:04:05.000"), r.Method, r.Path)
	if r.Model != "" || r.Items > 0 {
		s += fmt.Sprintf(" model=%s stream=%t tools=%d items=%d", r.Model, r.Stream, r.Tools, r.Items)
	}
	if r.Prompt != "" {
		s += fmt.Sprintf(" prompt=%q", r.Prompt)
	}
	if r.Reply != "" {
		s += " reply=" + r.Reply
	}
	return s + fmt.Sprintf(" -> %d", r.Status)
}

// Options tune a Server; the zero value is fine.
type Options struct {
	// Trace, when set, receives every request body, one line each.
	Trace io.Writer
	// InputTokens is the input_tokens every reply reports (0: estimated
	// from the body at ~4 bytes a token), so a test can drive the context
	// meter Codex computes from usage.
	InputTokens int64
}

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake openai: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, done: make(chan struct{}),
		quit: make(chan struct{}), opts: opts}
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		s.http.Serve(ln) // http.ErrServerClosed at Close
	}()
	return s, nil
}

// Close stops the server, cutting slow replies short.
func (s *Server) Close() error {
	close(s.quit)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.http.Close()
	}
	<-s.done
	return err
}

// Requests returns a copy of every request answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Log renders the request log, one request per line.
func (s *Server) Log() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		b.WriteString(r.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
}

func (s *Server) next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Request{Time: time.Now(), Method: r.Method, Path: r.URL.RequestURI(), Auth: clamp(r.Header.Get("Authorization"), 12)}
	defer func() { s.record(rec) }()
	switch {
	case r.URL.Path == "/v1/responses" && r.Method == http.MethodPost:
		s.responses(w, r, &rec)
	case r.URL.Path == "/v1/models" && r.Method == http.MethodGet:
		rec.Status = http.StatusOK
		writeJSON(w, rec.Status, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		rec.Status = http.StatusNotFound
		apiError(w, rec.Status, "fake openai: no route for "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request, rec *Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rec.Status = http.StatusBadRequest
		apiError(w, rec.Status, err.Error())
		return
	}
	if s.opts.Trace != nil {
		s.mu.Lock()
		fmt.Fprintf(s.opts.Trace, "%s %s\n", r.URL.RequestURI(), body)
		s.mu.Unlock()
	}
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		rec.Status = http.StatusBadRequest
		rec.Reply = "error " + err.Error()
		apiError(w, rec.Status, "fake openai: "+err.Error())
		return
	}
	rec.Model, rec.Stream, rec.Tools, rec.Items = req.Model, req.Stream, len(req.Tools), len(req.Input)
	sc := plan(&req)
	rec.Prompt = clamp(sc.Prompt, 80)
	if sc.Fail != "" {
		// 400: not retried; the turn fails at once.
		rec.Status, rec.Reply = http.StatusBadRequest, "error "+clamp(sc.Fail, 60)
		apiError(w, rec.Status, "FAKE-FAIL: "+sc.Fail)
		return
	}
	n := s.next()
	resp := response{ID: fmt.Sprintf("resp_fake%06d", n), Object: "response", Model: req.Model, Status: "completed"}
	in := s.opts.InputTokens
	if in <= 0 {
		in = int64(len(body)/4 + 1)
	}
	if sc.Command != "" {
		name, args := shellTool(req.Tools, sc.Command, sc.Escalated)
		a, _ := json.Marshal(args)
		resp.Output = []item{{Type: "function_call", ID: fmt.Sprintf("fc_fake%06d", n), Status: "completed",
			CallID: fmt.Sprintf("call_fake%06d", n), Name: name, Arguments: string(a)}}
		rec.Reply = "call:" + name + " " + sc.Command
		if sc.Escalated {
			rec.Reply += " escalated"
		}
	} else {
		resp.Output = []item{{Type: "message", ID: fmt.Sprintf("msg_fake%06d", n), Status: "completed", Role: "assistant",
			Content: []part{{Type: "output_text", Text: sc.Text, Annotations: []any{}}}}}
		rec.Reply = "text"
	}
	out := int64(len(sc.Text)+len(sc.Command))/4 + 8
	resp.Usage = &usage{InputTokens: in, InputTokensDetails: tokenDetails{CachedTokens: in / 2},
		OutputTokens: out, OutputTokensDetails: outDetails{ReasoningTokens: 0}, TotalTokens: in + out}
	if sc.Delay > 0 {
		rec.Reply += fmt.Sprintf(" delay=%s", sc.Delay)
	}
	rec.Status = http.StatusOK
	if !req.Stream {
		if s.sleep(r.Context(), sc.Delay) {
			writeJSON(w, rec.Status, resp)
		}
		return
	}
	s.stream(w, r, resp, sc.Delay)
}

// sleep waits d, or less if the client left or the server closes.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.quit:
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

func clamp(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
