package anthropic

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agwatch/ag/t/fakeapi/serve"
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
	Safeguards []safeguard `json:"safeguards"`
}

// outputFormat is a structured-output request (the CLI asks for the session
// title as {"title": ...}).
type outputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
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
	// verdicts is the safety check's safeguard_results, sent in the
	// stream's message_delta (nil: none asked for, or NoVerdicts).
	verdicts json.RawMessage
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
	Prompt  string        // the last user message's text (empty after a tool_result)
	Last    string        // its newest text block: what was typed last
	Command string        // run this with Bash (a tool_use reply) when set
	Tool    string        // else call this tool (ASK:, PLAN:, AGENT:) ...
	Input   string        // ... with this input (a JSON object)
	Text    string        // the text reply otherwise
	Fail    string        // answer with an API error (400) saying this
	Delay   time.Duration // hold the reply this long after message_start
}

// DefaultSlow is the delay of a bare SLOW marker.
const DefaultSlow = serve.DefaultSlow

// The markers for Claude's own tools; RUN:, FAIL: and SLOW are every
// fake's (package serve).
var (
	askRe  = regexp.MustCompile(`(?m)ASK:[ \t]*(\S[^\r\n]*)`)
	planRe = regexp.MustCompile(`(?m)PLAN(?:-BARE)?:[ \t]*(\S[^\r\n]*)`)
	// Claude Code's plan-mode reminder: "... create your plan at <path> using the Write tool".
	planFileRe = regexp.MustCompile(`create your plan at (/\S+?\.md)\b`)
	agentRe    = regexp.MustCompile(`(?m)AGENT(-BG)?:[ \t]*(\S[^\r\n]*)`)
)

// plan decides the reply to req from its last user message (the CLI may put
// system-role messages after it): a tool_result gets the final text; a prompt
// with FAIL: gets an API error (400), with RUN: a Bash tool_use, with ASK: an
// AskUserQuestion, with PLAN: an ExitPlanMode, with AGENT: an Agent (or
// Task) call when the request offers that tool; anything else gets text. A
// request without
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
		switch used := lastToolUse(req); {
		case used == "Write", used == ToolSearch && selected(req) == ToolPlan:
			// The plan file a PLAN: prompt wrote (or ExitPlanMode's schema,
			// loaded): now ask to leave plan mode.
			if m := planRe.FindStringSubmatch(promptWith(req, planRe)); m != nil && sc.call(req, ToolPlan, map[string]any{"plan": strings.TrimSpace(m[1])}) {
				return sc
			}
		}
	}
	// A tool_result with user text beside it is a refused tool and the
	// user's next message (Escape, then typing): answer the text.
	if len(results) > 0 && len(texts) == 0 {
		sc.Text = "FAKE-REPLY: the command finished: " + serve.Clamp(strings.Join(results, " "), 60)
		return sc
	}
	sc.Prompt = strings.Join(texts, "\n")
	if len(texts) > 0 {
		sc.Last = texts[len(texts)-1]
	}
	if len(req.Tools) == 0 {
		sc.Text = sideReply(req.OutputConfig.Format)
		return sc
	}
	sc.Delay = serve.Slow(sc.Prompt)
	// After a failed request the CLI sends the failed prompt again with the
	// next one in the same message: only the newest text can fail.
	if sc.Fail = serve.Fail(sc.Last); sc.Fail != "" {
		return sc
	}
	// A prompt that starts with AGENT: is for a sub-agent whatever else it
	// holds ("AGENT: RUN: cmd" has the sub-agent run cmd).
	if strings.HasPrefix(strings.TrimSpace(sc.Prompt), "AGENT") {
		if sc.agent(req) {
			return sc
		}
	}
	// Claude Code has no escalation to ask for: RUNSAFE: is RUN:.
	if sc.Command, _ = serve.Run(sc.Prompt); sc.Command != "" {
		return sc
	}
	if m := askRe.FindStringSubmatch(sc.Prompt); m != nil && hasTool(req, ToolAsk) {
		sc.Tool, sc.Input = ToolAsk, askInput(strings.TrimSpace(m[1]))
		return sc
	}
	if m := planRe.FindStringSubmatch(sc.Prompt); m != nil && (hasTool(req, ToolPlan) || deferred(req, ToolPlan)) {
		text := strings.TrimSpace(m[1])
		// In plan mode Claude Code names the plan file to write; without
		// one ExitPlanMode shows a bare "Exit plan mode?" yes/no instead
		// of the plan approval. PLAN-BARE: skips the file on purpose.
		if f := planFileRe.FindStringSubmatch(allText(req)); f != nil && !strings.Contains(m[0], "PLAN-BARE:") && hasTool(req, "Write") {
			sc.Tool, sc.Input = "Write", jsonObject(map[string]any{"file_path": f[1], "content": "# Plan\n\n" + text + "\n"})
			return sc
		}
		sc.call(req, ToolPlan, map[string]any{"plan": text})
		return sc
	}
	if sc.agent(req) {
		return sc
	}
	line := ""
	if len(texts) > 0 {
		line = texts[len(texts)-1]
	}
	sc.Text = "FAKE-REPLY: " + serve.Clamp(line, 60)
	return sc
}

// agent makes sc an Agent (or Task) call when the prompt has AGENT: and
// the request offers the tool.
func (sc *Script) agent(req *messagesRequest) bool {
	m := agentRe.FindStringSubmatch(sc.Prompt)
	if m == nil {
		return false
	}
	// Claude Code renamed Task to Agent; call whichever it offers.
	for _, name := range []string{"Agent", "Task"} {
		if hasTool(req, name) {
			in := map[string]any{"description": "Fake sub-agent",
				"prompt": strings.TrimSpace(m[2]), "subagent_type": "general-purpose"}
			if m[1] != "" {
				in["run_in_background"] = true
			}
			// A SLOW in the sub-agent's prompt is for the sub-agent.
			sc.Tool, sc.Input, sc.Delay = name, jsonObject(in), 0
			return true
		}
	}
	return false
}

// Tools the markers call.
const (
	ToolAsk  = "AskUserQuestion"
	ToolPlan = "ExitPlanMode"
	// ToolSearch loads a deferred tool's schema: Claude Code 2.1.332
	// offers ExitPlanMode only by name ("deferred"), and the model asks
	// for it with {"query": "select:ExitPlanMode"} before calling it.
	ToolSearch = "ToolSearch"
)

// call makes sc a call of tool with input: at once when the request
// offers the tool, else, when it is deferred, a ToolSearch that loads it
// (the call follows the search's result). False when neither.
func (sc *Script) call(req *messagesRequest, tool string, input map[string]any) bool {
	switch {
	case hasTool(req, tool):
		sc.Tool, sc.Input = tool, jsonObject(input)
	case deferred(req, tool):
		sc.Tool, sc.Input = ToolSearch, jsonObject(map[string]any{"query": "select:" + tool})
	default:
		return false
	}
	return true
}

// deferred reports whether the request names tool as one ToolSearch can
// load ("… Use ToolSearch with query "select:<name>" … : CronCreate …
// ExitPlanMode …", in a system message).
func deferred(req *messagesRequest, tool string) bool {
	if !hasTool(req, ToolSearch) {
		return false
	}
	all := allText(req)
	i := strings.Index(all, "select:<name>")
	return i >= 0 && regexp.MustCompile(`\b`+regexp.QuoteMeta(tool)+`\b`).MatchString(all[i:])
}

// selected is the tool the last ToolSearch of the request selected.
func selected(req *messagesRequest) string {
	for _, b := range lastToolUses(req) {
		if b.Name == ToolSearch {
			var in struct {
				Query string `json:"query"`
			}
			json.Unmarshal(b.Input, &in)
			name, _ := strings.CutPrefix(in.Query, "select:")
			return name
		}
	}
	return ""
}

// AskOptions are the choices an ASK: question offers, in order.
var AskOptions = [2]string{"Blue", "Green"}

// askInput is AskUserQuestion's input for one single-choice question.
func askInput(question string) string {
	return jsonObject(map[string]any{"questions": []any{map[string]any{
		"question": question, "header": "Choice", "multiSelect": false,
		"options": []any{
			map[string]string{"label": AskOptions[0], "description": "The first choice"},
			map[string]string{"label": AskOptions[1], "description": "The second choice"},
		},
	}}})
}

func jsonObject(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// hasTool reports whether the request offers the tool name.
func hasTool(req *messagesRequest, name string) bool {
	for _, raw := range req.Tools {
		var t struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Name == name {
			return true
		}
	}
	return false
}

// lastToolUse is the name of the last tool the model called before the
// last user message ("" if none).
func lastToolUse(req *messagesRequest) string {
	uses := lastToolUses(req)
	if len(uses) == 0 {
		return ""
	}
	return uses[len(uses)-1].Name
}

// toolUse is a tool_use block of an assistant message.
type toolUse struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// lastToolUses are the tool calls of the request's last assistant message.
func lastToolUses(req *messagesRequest) []toolUse {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role != "assistant" {
			continue
		}
		var blocks []toolUse
		json.Unmarshal(req.Messages[i].Content, &blocks)
		return slices.DeleteFunc(blocks, func(b toolUse) bool { return b.Type != "tool_use" })
	}
	return nil
}

// firstPrompt is the user text of the latest user message that has any
// (the prompt a run of tool calls answers).
func firstPrompt(req *messagesRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			if texts, _ := userContent(req.Messages[i].Content); len(texts) > 0 {
				return strings.Join(texts, "\n")
			}
		}
	}
	return ""
}

// promptWith is the user text of the latest user message that matches re
// (Claude Code 2.1.332 puts "Tool loaded." beside a ToolSearch's result).
func promptWith(req *messagesRequest, re *regexp.Regexp) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			if texts, _ := userContent(req.Messages[i].Content); re.MatchString(strings.Join(texts, "\n")) {
				return strings.Join(texts, "\n")
			}
		}
	}
	return ""
}

// allText is every text of the request's messages, reminders and the
// CLI's system-role messages included.
func allText(req *messagesRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			b.WriteString(s)
			b.WriteByte('\n')
			continue
		}
		var blocks []struct {
			Text string `json:"text"`
		}
		json.Unmarshal(m.Content, &blocks)
		for _, x := range blocks {
			b.WriteString(x.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// sideReply answers a side request: with a json_schema format, an object
// that fits the schema ({"title": "Fake title"}); otherwise a short text.
func sideReply(f *outputFormat) string {
	if f == nil || f.Type != "json_schema" {
		return "Fake session"
	}
	return serve.FillJSON(f.Schema)
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
