package serve

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// SSE writes one server-sent event stream, flushing after every event so
// the client sees each as it is sent.
type SSE struct {
	w  http.ResponseWriter
	fl http.Flusher
}

// StartSSE answers 200 with an event stream; headers are added first
// (a request id, say).
func StartSSE(w http.ResponseWriter, headers ...string) *SSE {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], headers[i+1])
	}
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	return &SSE{w: w, fl: fl}
}

// Event sends v as JSON in an event called name ("event: name" then
// "data: {...}"); an empty name sends the data line alone, as the Chat
// Completions and Gemini streams do.
func (e *SSE) Event(name string, v any) {
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", JSON(v))
	e.flush()
}

// Done sends the "data: [DONE]" line that ends a Chat Completions stream.
func (e *SSE) Done() {
	fmt.Fprint(e.w, "data: [DONE]\n\n")
	e.flush()
}

func (e *SSE) flush() {
	if e.fl != nil {
		e.fl.Flush()
	}
}

// Chunks splits s into pieces of at most n bytes without cutting a UTF-8
// sequence, as a real stream delivers text and arguments in several
// deltas. The empty string is one empty piece.
func Chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		if i == 0 {
			i = n
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" || len(out) == 0 {
		out = append(out, s)
	}
	return out
}

// Event is one server-sent event as a client reads it.
type Event struct {
	Name string // "" for a data-only event
	Data string
}

// ReadSSE reads a whole event stream the way a client does, for the fakes'
// tests: "event:" and "data:" lines, dispatched at a blank line. Anything
// else, or a stream that ends inside an event, is an error naming the
// line.
func ReadSSE(r io.Reader) ([]Event, error) {
	var evs []Event
	var ev Event
	open := false
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "":
			if open {
				evs = append(evs, ev)
			}
			ev, open = Event{}, false
		case strings.HasPrefix(line, "event: "):
			ev.Name, open = strings.TrimPrefix(line, "event: "), true
		case strings.HasPrefix(line, "data: "):
			if ev.Data != "" {
				ev.Data += "\n"
			}
			ev.Data, open = ev.Data+strings.TrimPrefix(line, "data: "), true
		default:
			return evs, fmt.Errorf("line %d: not an SSE line: %q", n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return evs, err
	}
	if open {
		return evs, fmt.Errorf("stream ended inside an event (%q)", ev.Name)
	}
	return evs, nil
}
