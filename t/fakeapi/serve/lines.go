package serve

import (
	"fmt"
	"net/http"
)

// Lines writes one stream of newline-delimited JSON objects (Augment's
// chat-stream), flushing after every line so the client sees each as it
// is sent.
type Lines struct {
	w  http.ResponseWriter
	fl http.Flusher
}

// StartLines answers 200 with a stream of JSON lines of the content type
// given.
func StartLines(w http.ResponseWriter, contentType string) *Lines {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	return &Lines{w: w, fl: fl}
}

// Line sends v as one line of JSON.
func (l *Lines) Line(v any) {
	fmt.Fprintf(l.w, "%s\n", JSON(v))
	if l.fl != nil {
		l.fl.Flush()
	}
}
