package serve

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Request is what every fake records of a request it answered; each
// fake's own record embeds it and adds what its wire format has.
type Request struct {
	Time   time.Time
	Method string
	Path   string // with the query
	Agent  string // User-Agent
	Model  string
	Stream bool
	Tools  int    // tools (functions) offered
	Prompt string // the user text answered, clamped
	Reply  string // what was sent: "text", "call:<tool> <command>", "error ...", ...
	Status int
}

// HTTPMethod is the request's method (for Server.Count).
func (r Request) HTTPMethod() string { return r.Method }

// NewRequest starts the record of r.
func NewRequest(r *http.Request) Request {
	return Request{Time: time.Now(), Method: r.Method, Path: r.URL.RequestURI(), Agent: r.UserAgent()}
}

// Line renders the record on one line: time, method and path, the
// agent's first word (opencode/1.18.33), for a model request its model,
// stream and tools and the fake's own fields (each "key=value"), then
// the prompt, the reply and the status.
func (r Request) Line(fields ...string) string {
	s := fmt.Sprintf("%s %s %s", r.Time.UTC().Format("15:04:05.000"), r.Method, r.Path)
	if a, _, _ := strings.Cut(r.Agent, " "); a != "" {
		s += " agent=" + a
	}
	if r.Model != "" || r.Tools > 0 {
		s += fmt.Sprintf(" model=%s stream=%t tools=%d", r.Model, r.Stream, r.Tools)
	}
	for _, f := range fields {
		if f != "" {
			s += " " + f
		}
	}
	if r.Prompt != "" {
		s += fmt.Sprintf(" prompt=%q", r.Prompt)
	}
	if r.Reply != "" {
		s += " reply=" + r.Reply
	}
	return s + fmt.Sprintf(" -> %d", r.Status)
}

// Field is "key=value", or "" when value is the zero value (Line leaves
// those out).
func Field[T comparable](key string, value T) string {
	var zero T
	if value == zero {
		return ""
	}
	return fmt.Sprintf("%s=%v", key, value)
}
