package openai

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// The part of a Responses request the fake reads.
type responsesRequest struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Tools  []json.RawMessage `json:"tools"`
	Input  []inputItem       `json:"input"`
	Text   struct {
		Format *textFormat `json:"format"`
	} `json:"text"`
}

type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or an array of parts
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

// textFormat is a structured-output request (Codex asks for the thread
// title as {"title": ...} with no tools).
type textFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// Script is what the fake model does for one request; a RUN: command
// (not RUNSAFE:) asks for escalated permissions.
type Script = serve.Script

// proposeRe is PROPOSE: <title>, a reply that proposes a plan.
var proposeRe = regexp.MustCompile(`(?m)\bPROPOSE:[ \t]*(\S[^\r\n]*)`)

// injected are user-role texts Codex adds itself (environment, AGENTS.md,
// skills): never the prompt.
var injected = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md", "<skills_instructions>",
	"<permissions instructions>", "<turn_aborted>", "<user_shell_command>"}

// plan decides the reply to req from its last input item: a tool output
// gets the final text; a user prompt with FAIL: gets an API error (400),
// with RUN: a shell call asking for escalated permissions (RUNSAFE: runs in
// the sandbox); anything else gets text. A request without tools is a side request (the thread title): it
// gets an object matching its json_schema format, and never waits.
func plan(req *responsesRequest) Script {
	var sc Script
	if len(req.Tools) == 0 {
		sc.Text = sideReply(req.Text.Format)
		return sc
	}
	for i := len(req.Input) - 1; i >= 0; i-- {
		it := req.Input[i]
		switch {
		case it.Type == "function_call_output" || it.Type == "custom_tool_call_output":
			sc.Text = serve.ToolDone
			return sc
		case it.Role == "user" && (it.Type == "message" || it.Type == ""):
			texts := userTexts(it.Content)
			if len(texts) == 0 {
				continue // only injected context: look further back
			}
			prompt := strings.Join(texts, "\n")
			if m := proposeRe.FindStringSubmatch(prompt); m != nil {
				// Codex's Plan mode: a plan is the reply's <proposed_plan>
				// block.
				sc = serve.Plan(prompt)
				sc.Command, sc.Tool, sc.Text = "", "", "<proposed_plan>\n# "+m[1]+"\n\n1. Write the code.\n2. Test it.\n</proposed_plan>"
				return sc
			}
			return serve.Plan(prompt)
		}
	}
	sc.Text = "FAKE-REPLY: nothing to answer"
	return sc
}

// sideReply answers a side request: with a json_schema format, an object
// that fits the schema; otherwise text.
func sideReply(f *textFormat) string {
	if f == nil || f.Type != "json_schema" {
		return "Fake title"
	}
	return serve.FillJSON(f.Schema)
}

// userTexts returns the text parts of a user message Codex did not inject.
func userTexts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return keep(nil, s)
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []string
	for _, p := range parts {
		if p.Type == "input_text" || p.Type == "text" {
			out = keep(out, p.Text)
		}
	}
	return out
}

func keep(out []string, s string) []string {
	t := strings.TrimSpace(s)
	if t == "" {
		return out
	}
	for _, pre := range injected {
		if strings.HasPrefix(t, pre) {
			return out
		}
	}
	return append(out, s)
}

// shellTool picks the shell tool the client offers and the arguments for
// cmd: exec_command {cmd, sandbox_permissions, justification} (Codex
// 0.1xx), shell_command {command} or shell {command: argv} (older).
func shellTool(tools []json.RawMessage, cmd string, escalated bool) (name string, args map[string]any) {
	names := map[string]bool{}
	for _, raw := range tools {
		var t struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Name != "" {
			names[t.Name] = true
		}
	}
	perm := "use_default"
	if escalated {
		perm = "require_escalated"
	}
	switch {
	case names["exec_command"] || len(names) == 0:
		args = map[string]any{"cmd": cmd, "sandbox_permissions": perm}
		if escalated {
			args["justification"] = "Run the requested command?"
		}
		return "exec_command", args
	case names["shell_command"]:
		args = map[string]any{"command": cmd}
		if escalated {
			args["sandbox_permissions"], args["justification"] = perm, "Run the requested command?"
		}
		return "shell_command", args
	default:
		args = map[string]any{"command": []string{"bash", "-lc", cmd}}
		if escalated {
			args["sandbox_permissions"], args["justification"] = perm, "Run the requested command?"
		}
		return "shell", args
	}
}
