// Package serve is what every fake model API in t/fakeapi shares: an HTTP
// server on a free port of 127.0.0.1 that records each request it answers
// (Log renders them for a failing test), replies held back by the prompt's
// SLOW marker and cut short at Close, server-sent events, the prompt
// markers that script the fake model (RUN:, RUNSAFE:, CALL:, FAIL:,
// SLOW), the shell tool picked from the tools a client offers, and
// objects made up to fit a JSON schema (titles, routers). A wire format
// adds only its own encoding.
package serve

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

// Server is one running fake API; R is its record of one request.
type Server[R fmt.Stringer] struct {
	// URL is the base URL, http://127.0.0.1:<port> with no path.
	URL string

	ln    net.Listener
	http  *http.Server
	done  chan struct{}
	quit  chan struct{} // closed at Close: ends held replies
	trace io.Writer

	mu   sync.Mutex
	reqs []R
	seq  int
}

// Listen opens a free port on 127.0.0.1 for the fake called name ("fake
// gemini": the prefix of its errors). trace, when not nil, receives every
// request body read with ReadBody, one line each, to see what a new CLI
// version sends. Nothing is answered before Serve.
func Listen[R fmt.Stringer](name string, trace io.Writer) (*Server[R], error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Server[R]{URL: "http://" + ln.Addr().String(), ln: ln,
		done: make(chan struct{}), quit: make(chan struct{}), trace: trace}, nil
}

// Options tune a fake; the zero value is fine.
type Options struct {
	// Trace, when set, receives every request body, one line each (path,
	// space, body), to see what a new CLI version sends.
	Trace io.Writer
	// InputTokens is the prompt every reply reports, cached tokens
	// included (0: ~4 bytes of the request body a token), to drive a
	// context meter.
	InputTokens int64
}

// Start listens for the fake called name and serves it with the handler
// newFake makes of the listening server (a wire format's Server, which
// embeds it).
func Start[R fmt.Stringer, F http.Handler](name string, trace io.Writer, newFake func(*Server[R]) F) (F, error) {
	base, err := Listen[R](name, trace)
	if err != nil {
		var none F
		return none, err
	}
	f := newFake(base)
	base.Serve(f)
	return f, nil
}

// Serve answers requests with h until Close.
func (s *Server[R]) Serve(h http.Handler) {
	s.http = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		s.http.Serve(s.ln) // http.ErrServerClosed at Close
	}()
}

// Close stops the server, cutting held replies short.
func (s *Server[R]) Close() error {
	close(s.quit)
	if s.http == nil {
		return s.ln.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.http.Close()
	}
	<-s.done
	return err
}

// BaseURL is URL (for Fake, which cannot name a field).
func (s *Server[R]) BaseURL() string { return s.URL }

// Record adds r to the request log.
func (s *Server[R]) Record(r R) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
}

// Requests returns a copy of every request answered so far.
func (s *Server[R]) Requests() []R {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]R(nil), s.reqs...)
}

// Count is how many requests of method (POST, GET) were answered so far,
// of records that embed Request.
func (s *Server[R]) Count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.reqs {
		if m, ok := any(r).(interface{ HTTPMethod() string }); ok && m.HTTPMethod() == method {
			n++
		}
	}
	return n
}

// Log renders the request log, one request per line.
func (s *Server[R]) Log() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		b.WriteString(r.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Next returns the server's next sequence number (1, 2, ...), for the ids
// of messages and tool calls.
func (s *Server[R]) Next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// ReadBody reads r's body whole and copies it to the trace.
func (s *Server[R]) ReadBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	if s.trace != nil {
		s.mu.Lock()
		fmt.Fprintf(s.trace, "%s %s\n", r.URL.RequestURI(), body)
		s.mu.Unlock()
	}
	return body, nil
}

// Decode reads r's body with ReadBody and decodes its JSON into v.
func (s *Server[R]) Decode(r *http.Request, v any) ([]byte, error) {
	body, err := s.ReadBody(r)
	if err != nil {
		return nil, err
	}
	return body, json.Unmarshal(body, v)
}

// Sleep waits d and reports true, or false as soon as the client leaves
// or the server closes.
func (s *Server[R]) Sleep(ctx context.Context, d time.Duration) bool {
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

// JSON is v as JSON text, "<", ">" and "&" left as they are (a command
// reads as typed in a trace or a stream).
func JSON(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// WriteJSON answers with v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Clamp is s on one line, its runs of white space made one space, cut to
// n bytes with an ellipsis: prompts and replies as a log shows them.
func Clamp(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
