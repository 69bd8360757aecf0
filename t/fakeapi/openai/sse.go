package openai

import (
	"net/http"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// The Responses API objects the fake writes.
type response struct {
	ID     string `json:"id"`
	Object string `json:"object"`
	Model  string `json:"model"`
	Status string `json:"status"`
	Output []item `json:"output"`
	Usage  *usage `json:"usage,omitempty"`
}

type item struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Status    string `json:"status"`
	Role      string `json:"role,omitempty"`
	Content   []part `json:"content,omitempty"`
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

type part struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
}

type usage struct {
	InputTokens         int64        `json:"input_tokens"`
	InputTokensDetails  tokenDetails `json:"input_tokens_details"`
	OutputTokens        int64        `json:"output_tokens"`
	OutputTokensDetails outDetails   `json:"output_tokens_details"`
	TotalTokens         int64        `json:"total_tokens"`
}

type tokenDetails struct {
	CachedTokens int64 `json:"cached_tokens"`
}

type outDetails struct {
	ReasoningTokens int64 `json:"reasoning_tokens"`
}

// stream writes resp as the Responses API's SSE sequence: response.created,
// response.in_progress, then per output item output_item.added, its deltas
// (output_text.delta or function_call_arguments.delta, then .done) and
// output_item.done, then response.completed with the usage. delay is spent
// after response.created, so the client is mid-turn while it waits.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, resp response, delay time.Duration) {
	sse := serve.StartSSE(w, "x-request-id", "req_"+resp.ID)
	seq := 0
	send := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		sse.Event(typ, fields)
	}
	start := resp
	start.Status, start.Output, start.Usage = "in_progress", []item{}, nil
	send("response.created", map[string]any{"response": start})
	send("response.in_progress", map[string]any{"response": start})
	if !s.Sleep(r.Context(), delay) {
		return
	}
	for i, it := range resp.Output {
		open := it
		open.Status = "in_progress"
		switch it.Type {
		case "message":
			open.Content = []part{}
			send("response.output_item.added", map[string]any{"output_index": i, "item": open})
			for ci, p := range it.Content {
				send("response.content_part.added", map[string]any{"item_id": it.ID, "output_index": i,
					"content_index": ci, "part": part{Type: p.Type, Annotations: []any{}}})
				for _, c := range serve.Chunks(p.Text, 16) {
					send("response.output_text.delta", map[string]any{"item_id": it.ID, "output_index": i,
						"content_index": ci, "delta": c})
				}
				send("response.output_text.done", map[string]any{"item_id": it.ID, "output_index": i,
					"content_index": ci, "text": p.Text})
				send("response.content_part.done", map[string]any{"item_id": it.ID, "output_index": i,
					"content_index": ci, "part": p})
			}
		case "function_call":
			open.Arguments = ""
			send("response.output_item.added", map[string]any{"output_index": i, "item": open})
			for _, c := range serve.Chunks(it.Arguments, 24) {
				send("response.function_call_arguments.delta", map[string]any{"item_id": it.ID, "output_index": i, "delta": c})
			}
			send("response.function_call_arguments.done", map[string]any{"item_id": it.ID, "output_index": i,
				"arguments": it.Arguments})
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	send("response.completed", map[string]any{"response": resp})
}
