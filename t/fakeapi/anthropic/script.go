package anthropic

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"
)

// The part of a Messages request the fake reads.
type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or an array of blocks
	} `json:"messages"`
	OutputConfig struct {
		Format *outputFormat `json:"format"`
	} `json:"output_config"`
}

// outputFormat is a structured-output request (the CLI asks for the session
// title as {"title": ...}).
type outputFormat struct {
	Type   string `json:"type"`
	Schema struct {
		Required []string `json:"required"`
	} `json:"schema"`
}

// The reply message, also the payload of message_start.
type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []block `json:"content"`
	StopReason   string  `json:"stop_reason,omitempty"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

type block struct {
	Type  string `json:"type"`
	Text  string `json:"text,omitempty"`
	ID    string `json:"id,omitempty"`
	Name  string `json:"name,omitempty"`
	Input any    `json:"input,omitempty"`
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

// Script is what the fake model will do for one request.
type Script struct {
	Prompt  string        // the last user text (empty after a tool_result)
	Command string        // run this with Bash (a tool_use reply) when set
	Text    string        // the text reply otherwise
	Delay   time.Duration // hold the reply this long after message_start
}

// DefaultSlow is the delay of a bare SLOW marker.
const DefaultSlow = 3 * time.Second

var (
	runRe  = regexp.MustCompile(`(?m)RUN:[ \t]*(\S[^\r\n]*)`)
	slowRe = regexp.MustCompile(`\bSLOW(?::([0-9.]+(?:ms|s)))?\b`)
)

// plan decides the reply to req from its last user message (the CLI may put
// system-role messages after it): a tool_result gets the final text; a prompt
// with RUN: gets a Bash tool_use; anything else gets text. A request without
// tools is a side request (the session title, ...): it gets text, or an
// object matching its json_schema output format, and never waits.
func plan(req *messagesRequest) Script {
	var sc Script
	var last json.RawMessage
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			last = req.Messages[i].Content
			break
		}
	}
	texts, results := userContent(last)
	if len(results) > 0 {
		sc.Text = "FAKE-REPLY: the command finished: " + clamp(strings.Join(results, " "), 60)
		return sc
	}
	sc.Prompt = strings.Join(texts, "\n")
	if len(req.Tools) == 0 {
		sc.Text = sideReply(req.OutputConfig.Format)
		return sc
	}
	if m := slowRe.FindStringSubmatch(sc.Prompt); m != nil {
		sc.Delay = DefaultSlow
		if m[1] != "" {
			if d, err := time.ParseDuration(m[1]); err == nil {
				sc.Delay = d
			}
		}
	}
	if m := runRe.FindStringSubmatch(sc.Prompt); m != nil {
		sc.Command = strings.TrimSpace(m[1])
		return sc
	}
	line := ""
	if len(texts) > 0 {
		line = texts[len(texts)-1]
	}
	sc.Text = "FAKE-REPLY: " + clamp(line, 60)
	return sc
}

// sideReply answers a side request: with a json_schema format, an object
// with every required property set to a fake string ({"title": "Fake
// title"}); otherwise a short text.
func sideReply(f *outputFormat) string {
	if f == nil || f.Type != "json_schema" {
		return "Fake session"
	}
	obj := map[string]string{}
	for _, name := range f.Schema.Required {
		obj[name] = "Fake " + name
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

// userContent returns the user-written text blocks of one message (CLI
// <system-reminder> blocks left out) and the text of its tool_result blocks.
func userContent(raw json.RawMessage) (texts, results []string) {
	if len(raw) == 0 {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, nil
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if !strings.HasPrefix(strings.TrimSpace(b.Text), "<system-reminder>") {
				texts = append(texts, b.Text)
			}
		case "tool_result":
			r, _ := userContent(b.Content)
			results = append(results, strings.Join(r, " "))
		}
	}
	return texts, results
}
