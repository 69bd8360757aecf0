package augment

import (
	"encoding/json"
	"strings"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// The part of a chat-stream request the fake reads. The user's text comes
// as a text node (type 0) and, in older exchanges, as message; a tool's
// result as a tool_result node (type 1); the title request is silent.
type request struct {
	Model   string `json:"model"`
	Message string `json:"message"`
	Silent  bool   `json:"silent"`
	Nodes   []struct {
		Type     int `json:"type"`
		TextNode *struct {
			Content string `json:"content"`
		} `json:"text_node"`
		ToolResult *struct {
			ToolUseID string `json:"tool_use_id"`
			Content   string `json:"content"`
			IsError   bool   `json:"is_error"`
		} `json:"tool_result_node"`
	} `json:"nodes"`
	Tools []struct {
		Name   string `json:"name"`
		Schema string `json:"input_schema_json"` // JSON in a string
	} `json:"tool_definitions"`
}

// Response node types (Augment's ChatResultNodeType).
const (
	nodeText     = 0
	nodeToolUse  = 5
	nodeBilling  = 9
	nodeUsage    = 10
	stopEndTurn  = 1
	stopToolUse  = 3
	nodeToolText = 1 // a request node: a tool's result
)

// line is one line of the chat-stream reply.
type line struct {
	Text       string `json:"text"`
	Nodes      []node `json:"nodes"`
	StopReason int    `json:"stop_reason,omitempty"`
}

type node struct {
	ID         int       `json:"id"`
	Type       int       `json:"type"`
	Content    string    `json:"content"`
	ToolUse    *toolUse  `json:"tool_use,omitempty"`
	TokenUsage *tokenUse `json:"token_usage,omitempty"`
	Billing    *billing  `json:"billing_metadata,omitempty"`
}

// billing is what one reply cost: usage_unit 2 counts dollars (cost_usd,
// a decimal string), 1 credits.
type billing struct {
	Transaction string  `json:"transaction_id"`
	Credits     float64 `json:"credits_consumed"`
	CostUSD     string  `json:"cost_usd"`
	Unit        int     `json:"usage_unit"`
}

// Price is what the fake charges: a reply costs its tokens at these
// rates, in dollars a million tokens (cached input at a tenth).
const (
	PriceIn  = 3.0
	PriceOut = 15.0
)

// costOf is the price of a reply's usage, in dollars.
func costOf(u serve.Usage) float64 {
	return (float64(u.In-u.Cached)*PriceIn + float64(u.Cached)*PriceIn/10 + float64(u.Out)*PriceOut) / 1e6
}

type toolUse struct {
	ID    string `json:"tool_use_id"`
	Name  string `json:"tool_name"`
	Input string `json:"input_json"`
}

type tokenUse struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens"`
	CacheWrite int64 `json:"cache_creation_input_tokens"`
}

// usageOf is the usage as Augment reports it: input without the cached
// part, which is counted apart.
func usageOf(u serve.Usage) *tokenUse {
	return &tokenUse{Input: u.In - u.Cached, Output: u.Out, CacheRead: u.Cached}
}

// result is the tool result the request sends back, "" if none.
func (req *request) result() string {
	for _, n := range req.Nodes {
		if n.ToolResult != nil {
			return n.ToolResult.Content
		}
	}
	return ""
}

// plan decides the reply: a silent request (the title) or one without
// tools gets a short text; a tool's result the final text; the user's
// text what its markers ask (serve.Plan), with the call it makes among
// the tools offered.
func plan(req *request) (serve.Script, *serve.ToolCall) {
	if req.Silent || len(req.Tools) == 0 {
		return serve.Script{Text: "Fake title"}, nil
	}
	var texts []string
	for _, n := range req.Nodes {
		switch {
		case n.ToolResult != nil:
			return serve.Script{Text: serve.ToolDone}, nil
		case n.Type == nodeText && n.TextNode != nil:
			if t := serve.Typed(n.TextNode.Content); t != "" {
				texts = append(texts, t)
			}
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" {
		text = serve.Typed(req.Message)
	}
	if text == "" {
		return serve.Script{Text: "FAKE-REPLY: nothing to answer"}, nil
	}
	tools := make([]serve.Tool, len(req.Tools))
	for i, t := range req.Tools {
		tools[i] = serve.Tool{Name: t.Name, Params: json.RawMessage(t.Schema)}
	}
	sc := serve.Plan(text)
	call := sc.Call(tools)
	if call != nil && sc.Command != "" {
		launchArgs(call.Args)
	}
	return sc, call
}

// launchArgs sets what launch-process requires beyond the command so the
// call runs as a model's would: in the workspace, waited for.
func launchArgs(args map[string]any) {
	for k, v := range map[string]any{"wait": true, "max_wait_seconds": 30, "cwd": "."} {
		if _, ok := args[k]; ok {
			args[k] = v
		}
	}
}
