package augment

import (
	"fmt"
	"net/http"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// stream writes the reply as chat-stream's lines of JSON: the text in
// pieces (each piece in text and in a text node), then the tool call
// whole, then what it cost and the token usage, with the stop reason. The hold is spent
// after the first line, so the client is mid-reply while it waits.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, sc serve.Script, call *serve.ToolCall, u serve.Usage) {
	out := serve.StartLines(w, "application/json")
	n := s.Next()
	id := 0
	text := sc.Text
	if call != nil {
		text = "I will call " + call.Name + "."
		if sc.Command != "" {
			text = "I will run the command."
		}
	}
	for i, piece := range serve.Chunks(text, 16) {
		id++
		out.Line(line{Text: piece, Nodes: []node{{ID: id, Type: nodeText, Content: piece}}})
		if i == 0 && !s.Sleep(r.Context(), sc.Delay) {
			return
		}
	}
	stop := stopEndTurn
	if call != nil {
		id++
		out.Line(line{Nodes: []node{{ID: id, Type: nodeToolUse, ToolUse: &toolUse{
			ID: fmt.Sprintf("toolu_fake%06d", n), Name: call.Name, Input: serve.JSON(call.Args)}}}})
		stop = stopToolUse
	}
	id += 2
	out.Line(line{Nodes: []node{
		{ID: id - 1, Type: nodeBilling, Billing: &billing{Transaction: fmt.Sprintf("txn_fake%06d", n), CostUSD: fmt.Sprintf("%.6f", costOf(u)), Unit: 2}},
		{ID: id, Type: nodeUsage, TokenUsage: usageOf(u)},
	}, StopReason: stop})
}
