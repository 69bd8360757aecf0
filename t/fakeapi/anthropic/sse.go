package anthropic

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// stream writes msg as the Messages API's SSE sequence: message_start (with
// input usage), ping, per block content_block_start / _delta... / _stop,
// message_delta (stop_reason, output usage), message_stop. delay is spent
// after message_start, so the client is mid-turn while it waits.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, msg message, delay time.Duration) {
	send := serve.StartSSE(w, "request-id", "req_"+msg.ID).Event

	start := msg
	start.Content = []block{}
	start.StopReason = ""
	start.Usage.OutputTokens = 1
	send("message_start", map[string]any{"type": "message_start", "message": start})
	send("ping", map[string]string{"type": "ping"})
	if !s.Sleep(r.Context(), delay) {
		return
	}
	for i, b := range msg.Content {
		switch b.Type {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]string{"type": "text", "text": ""}})
			for _, part := range serve.Chunks(b.Text, 16) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]string{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			in, _ := json.Marshal(b.Input)
			for _, part := range serve.Chunks(string(in), 24) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]string{"type": "input_json_delta", "partial_json": part}})
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	delta := map[string]any{"stop_reason": msg.StopReason, "stop_sequence": nil}
	if msg.verdicts != nil {
		delta["safeguard_results"] = msg.verdicts
	}
	send("message_delta", map[string]any{"type": "message_delta", "delta": delta,
		"usage": map[string]int64{"output_tokens": msg.Usage.OutputTokens}})
	send("message_stop", map[string]string{"type": "message_stop"})
}
