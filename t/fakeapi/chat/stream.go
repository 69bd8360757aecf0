package chat

import (
	"net/http"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// stream writes c as chat.completion.chunk events: the role, then the
// content or the tool call in pieces, then the finish reason; the usage
// in a chunk of its own with no choices when the client asked for
// include_usage, else in the finishing chunk; then [DONE]. delay is spent
// after the first chunk, so the client is mid-reply while it waits.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, c completion, includeUsage bool, delay time.Duration) {
	sse := serve.StartSSE(w, "x-request-id", "req_"+c.ID)
	msg, finish := c.Choices[0].Message, c.Choices[0].FinishReason
	chunk := c
	chunk.Object, chunk.Usage = "chat.completion.chunk", nil
	send := func(d delta, finish *string) {
		chunk.Choices = []choice{{Delta: &d, FinishReason: finish}}
		sse.Event("", chunk)
	}
	empty := ""
	send(delta{Role: "assistant", Content: &empty}, nil)
	if !s.Sleep(r.Context(), delay) {
		return
	}
	if msg.Content != nil {
		for _, part := range serve.Chunks(*msg.Content, 16) {
			send(delta{Content: &part}, nil)
		}
	}
	for i, tc := range msg.ToolCalls {
		idx := i
		send(delta{ToolCalls: []toolCall{{Index: &idx, ID: tc.ID, Type: tc.Type,
			Function: function{Name: tc.Function.Name}}}}, nil)
		for _, part := range serve.Chunks(tc.Function.Arguments, 24) {
			send(delta{ToolCalls: []toolCall{{Index: &idx, Function: function{Arguments: part}}}}, nil)
		}
	}
	if includeUsage {
		send(delta{}, finish)
		chunk.Choices, chunk.Usage = []choice{}, c.Usage
		sse.Event("", chunk)
	} else {
		chunk.Usage = c.Usage
		send(delta{}, finish)
	}
	sse.Done()
}
