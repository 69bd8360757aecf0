package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// stream writes msg as the Messages API's SSE sequence: message_start (with
// input usage), ping, per block content_block_start / _delta... / _stop,
// message_delta (stop_reason, output usage), message_stop. delay is spent
// after message_start, so the client is mid-turn while it waits.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, msg message, delay time.Duration) {
	fl, _ := w.(http.Flusher)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("request-id", "req_"+msg.ID)
	w.WriteHeader(http.StatusOK)
	send := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if fl != nil {
			fl.Flush()
		}
	}

	start := msg
	start.Content = []block{}
	start.StopReason = ""
	start.Usage.OutputTokens = 1
	send("message_start", map[string]any{"type": "message_start", "message": start})
	send("ping", map[string]string{"type": "ping"})
	if !s.sleep(r.Context(), delay) {
		return
	}
	for i, b := range msg.Content {
		switch b.Type {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]string{"type": "text", "text": ""}})
			for _, part := range chunks(b.Text, 16) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]string{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			in, _ := json.Marshal(b.Input)
			for _, part := range chunks(string(in), 24) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]string{"type": "input_json_delta", "partial_json": part}})
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": msg.StopReason, "stop_sequence": nil},
		"usage": map[string]int64{"output_tokens": msg.Usage.OutputTokens}})
	send("message_stop", map[string]string{"type": "message_stop"})
}

// chunks splits s into pieces of at most n bytes without cutting a UTF-8
// sequence, as a real stream delivers text in several deltas.
func chunks(s string, n int) []string {
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
