package gemini

import (
	"net/http"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// stream writes resp as streamGenerateContent's server-sent events, each
// a GenerateContentResponse: the text in pieces, then a function call
// whole (as the API sends it), the last chunk carrying the finish reason
// and the usage. delay is spent after the first chunk, so the client is
// mid-reply while it waits.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, resp response, delay time.Duration) {
	sse := serve.StartSSE(w)
	var pieces []part
	for _, p := range resp.Candidates[0].Content.Parts {
		if p.FunctionCall != nil {
			pieces = append(pieces, p)
			continue
		}
		for _, t := range serve.Chunks(p.Text, 16) {
			pieces = append(pieces, part{Text: t})
		}
	}
	for i, p := range pieces {
		chunk := resp
		chunk.Candidates = []candidate{{Content: content{Role: "model", Parts: []part{p}}}}
		chunk.Usage = nil
		if i == len(pieces)-1 {
			chunk.Candidates[0].FinishReason, chunk.Usage = resp.Candidates[0].FinishReason, resp.Usage
		}
		sse.Event("", chunk)
		if i == 0 && !s.Sleep(r.Context(), delay) {
			return
		}
	}
}
