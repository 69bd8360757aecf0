package chat

import (
	"encoding/json"
	"strings"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// The part of a Chat Completions request the fake reads.
type request struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string, an array of parts, or null
	} `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// The reply: a chat.completion, or the chunks of one.
type completion struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"`
	Created           int64    `json:"created"`
	Model             string   `json:"model"`
	SystemFingerprint string   `json:"system_fingerprint"`
	Choices           []choice `json:"choices"`
	Usage             *usage   `json:"usage,omitempty"`
}

type choice struct {
	Index        int       `json:"index"`
	Message      *message  `json:"message,omitempty"`
	Delta        *delta    `json:"delta,omitempty"`
	FinishReason *string   `json:"finish_reason"`
	Logprobs     *struct{} `json:"logprobs"`
}

type message struct {
	Role      string     `json:"role,omitempty"`
	Content   *string    `json:"content"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
}

// delta is a piece of the message in a chunk; the last one is {}.
type delta struct {
	Role      string     `json:"role,omitempty"`
	Content   *string    `json:"content,omitempty"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	Index    *int     `json:"index,omitempty"` // in a delta
	ID       string   `json:"id,omitempty"`
	Type     string   `json:"type,omitempty"`
	Function function `json:"function"`
}

type function struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type usage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func usageOf(u serve.Usage) *usage {
	x := &usage{PromptTokens: u.In, CompletionTokens: u.Out, TotalTokens: u.Total()}
	x.PromptTokensDetails.CachedTokens = u.Cached
	return x
}

// plan decides the reply from the request's newest messages: a tool
// result after the last user message gets the final text; a request
// without tools (a title) gets text or an object for its json_schema; a
// user prompt gets what its markers ask (serve.Plan), with the call it
// makes among the tools offered.
func plan(req *request) (serve.Script, *serve.ToolCall) {
	if len(req.Tools) == 0 {
		if f := req.ResponseFormat; f != nil && f.Type == "json_schema" {
			return serve.Script{Text: serve.FillJSON(f.JSONSchema.Schema)}, nil
		}
		return serve.Script{Text: "Fake title"}, nil
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		switch m.Role {
		case "tool", "function":
			return serve.Script{Text: serve.ToolDone}, nil
		case "user":
			text := userText(m.Content)
			if text == "" {
				continue
			}
			tools := make([]serve.Tool, len(req.Tools))
			for i, t := range req.Tools {
				tools[i] = serve.Tool{Name: t.Function.Name, Params: t.Function.Parameters}
			}
			sc := serve.Plan(text)
			return sc, sc.Call(tools)
		}
	}
	return serve.Script{Text: "FAKE-REPLY: nothing to answer"}, nil
}

// userText is what was typed in a user message: its string, or its text
// parts joined by newlines, without the context blocks the client adds.
func userText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return serve.Typed(s)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if t := serve.Typed(p.Text); p.Type == "text" && t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n")
}
