// Package geminihook maps Gemini CLI's hook payloads to events: what
// ag-hook runs, apart from the rest of the Gemini provider (the settings
// editor, chat transcripts, pane rules), so the hook binary links none of
// that. providers/gemini delegates here.
//
// Gemini's hooks live in settings.json under "hooks", in Claude's shape
// with Gemini's event names; every payload carries session_id,
// transcript_path, cwd, hook_event_name and timestamp (Gemini CLI 0.61.0).
package geminihook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

// ID is Gemini CLI's agent id in events.
const ID = "gemini"

// Hook event names (hook_event_name) ag maps, in the order a turn meets
// them: install hooks exactly these. PreCompress is left out: Gemini fires
// it on every turn whether or not anything is compressed, it is neither a
// wait nor a turn, and no hook says when a compression ends. BeforeModel,
// AfterModel (once per streamed chunk) and BeforeToolSelection say nothing
// a user waits on.
const (
	HookSessionStart = "SessionStart"
	HookBeforeAgent  = "BeforeAgent"
	HookBeforeTool   = "BeforeTool"
	HookNotification = "Notification"
	HookAfterTool    = "AfterTool"
	HookAfterAgent   = "AfterAgent"
	HookSessionEnd   = "SessionEnd"
	HookPreCompress  = "PreCompress"
)

// Hooks are the events install writes, in the order settings.json lists
// them.
var Hooks = []string{
	HookSessionStart, HookBeforeAgent, HookBeforeTool, HookNotification,
	HookAfterTool, HookAfterAgent, HookSessionEnd,
}

// Tool names of Gemini's built-in tools that the hooks and the transcript
// name (Gemini CLI 0.61.0).
const (
	ToolShell     = "run_shell_command"
	ToolReplace   = "replace"
	ToolWrite     = "write_file"
	ToolWebFetch  = "web_fetch"
	ToolAskUser   = "ask_user"
	ToolExitPlan  = "exit_plan_mode"
	ToolEnterPlan = "enter_plan_mode"
)

// Text limits: enough for a notification or a prompt segment.
const (
	maxText    = 2000
	maxSummary = 300
)

// Mapper maps Gemini CLI's hook payloads (providers/hooks lists it).
type Mapper struct{}

// ID is the agent's id.
func (Mapper) ID() string { return ID }

// ProcessNames: Gemini CLI is a node program. Its launcher re-executes
// itself with a larger heap (`node --max-old-space-size=… …/bin/gemini`)
// and the child runs the session and its hooks (through `bash -c`), so the
// nearest node ancestor is the session's process. "gemini" is a build run
// as its own executable.
func (Mapper) ProcessNames() []string { return []string{"node", "gemini"} }

// Answer is `{}` on every path, whatever the payload: an empty stdout
// makes Gemini read the hook's stderr in its place, as a message to show
// (exit 0) or, after exit 2 (a Go runtime crash), as "deny" for
// BeforeTool. `{}` is no decision for any event: Gemini merges it as
// "allow", which is what no hook at all means.
func (Mapper) Answer([]byte) []byte { return []byte("{}") }

// payload holds the fields of a Gemini hook payload ag reads; strings
// leniently (jsonscan.Text), so a field of a surprising type never costs
// the event.
type payload struct {
	SessionID, TranscriptPath, Cwd, HookEventName string
	Source, Prompt, Reason                        string
	ToolName, NotificationType, Message           string

	ToolInput, ToolResponse, Details []byte // raw JSON
}

func (p *payload) str(k string) *string {
	switch k {
	case "session_id":
		return &p.SessionID
	case "transcript_path":
		return &p.TranscriptPath
	case "cwd":
		return &p.Cwd
	case "hook_event_name":
		return &p.HookEventName
	case "source":
		return &p.Source
	case "prompt":
		return &p.Prompt
	case "reason":
		return &p.Reason
	case "tool_name":
		return &p.ToolName
	case "notification_type":
		return &p.NotificationType
	case "message":
		return &p.Message
	}
	return nil
}

// parse reads a payload by hand: a hook process lives a millisecond.
func parse(raw []byte, p *payload) error {
	return jsonscan.Members(raw, func(k string, v []byte) error {
		switch k {
		case "tool_input":
			p.ToolInput = v
		case "tool_response":
			p.ToolResponse = v
		case "details":
			p.Details = v
		default:
			if f := p.str(k); f != nil {
				*f = jsonscan.Text(v)
			}
		}
		return nil
	})
}

// MapHook maps one Gemini hook payload to the event it means (see
// doc/agents/gemini.md); hooks ag does not map give none.
func (Mapper) MapHook(raw []byte, hc provider.HookContext) ([]event.Event, error) {
	var p payload
	if err := parse(raw, &p); err != nil {
		return nil, fmt.Errorf("hook payload: %w", err)
	}
	if p.HookEventName == "" {
		return nil, errors.New(`hook payload: no "hook_event_name"`)
	}
	if p.SessionID == "" {
		return nil, fmt.Errorf(`hook payload: %s without "session_id"`, p.HookEventName)
	}
	var kind string
	switch p.HookEventName {
	case HookSessionStart:
		kind = event.SessionStart
	case HookBeforeAgent:
		kind = event.TurnStart
	case HookBeforeTool:
		kind = event.ToolStart
	case HookAfterTool:
		kind = event.ToolEnd
	case HookNotification:
		if p.NotificationType != "ToolPermission" {
			return nil, nil
		}
		kind = event.Wait
	case HookAfterAgent:
		kind = event.TurnEnd
	case HookSessionEnd:
		kind = event.SessionEnd
	default:
		return nil, nil // PreCompress, BeforeModel, …: nothing to fold
	}
	out := make([]event.Event, 1)
	e := &out[0]
	e.V, e.T, e.Kind, e.Agent, e.Session = event.Version, event.At(hc.Now), kind, ID, p.SessionID
	e.Src = event.SrcHook
	// The id covers the payload and the second it arrived: one hook run
	// twice (two installs) folds once, the same command asked about again
	// later does not.
	e.ID = event.MakeID(event.SrcHook, e.Session, p.HookEventName, kind,
		event.MakeIDBytes(bytes.TrimSpace(raw)), strconv.FormatInt(hc.Now.Unix(), 10))
	hc.Place(e, p.Cwd)
	e.Transcript = p.TranscriptPath
	switch p.HookEventName {
	case HookSessionStart:
		e.Text = p.Source // startup, resume, clear
	case HookBeforeAgent:
		e.Text = event.Clamp(p.Prompt, maxText)
	case HookBeforeTool:
		e.Tool = p.ToolName
		e.Text = ToolSummary(p.ToolName, p.ToolInput)
		e.Options = ToolOptions(p.ToolName, p.ToolInput)
		if p.ToolName == ToolExitPlan {
			if plan := planText(p.TranscriptPath, p.SessionID, p.ToolInput); plan != "" {
				e.Text = plan
			}
		}
	case HookAfterTool:
		e.Tool = p.ToolName
		if failed(p.ToolResponse) {
			e.Reason = "error"
		}
	case HookNotification:
		permission(e, p.Details, p.Message)
	case HookAfterAgent:
		// No text: prompt_response is Gemini's own join of the streamed
		// chunks with spaces (0.61.0 sent "FAKE-REPLY: say hello hello"
		// for "FAKE-REPLY: say hello"); the chat has the answer as shown.
	case HookSessionEnd:
		e.Reason = p.Reason // exit, clear, logout, prompt_input_exit, other
	}
	return out, nil
}

// permission fills a wait from a ToolPermission notification's details:
// what Gemini's confirmation box asks (details.type), the tool where the
// type or title tells it, and the command, file, server tool or URLs.
func permission(e *event.Event, details []byte, message string) {
	d := map[string]string{}
	jsonscan.Members(details, func(k string, v []byte) error {
		switch k {
		case "urls":
			var urls []string
			jsonscan.Elements(v, func(u []byte) error {
				if s := jsonscan.Text(u); s != "" {
					urls = append(urls, s)
				}
				return nil
			})
			d[k] = strings.Join(urls, " ")
		case "type", "title", "command", "filePath", "fileName", "serverName", "toolName", "toolDisplayName", "prompt":
			d[k] = jsonscan.Text(v)
		}
		return nil
	})
	e.Attention = event.AttnPermission
	text := d["title"]
	switch d["type"] {
	case "exec":
		e.Tool, text = ToolShell, d["command"]
	case "edit":
		e.Tool = ToolReplace
		if strings.HasPrefix(d["title"], "Confirm Write") {
			e.Tool = ToolWrite
		}
		text = firstOf(d["filePath"], d["fileName"], text)
	case "mcp":
		if d["serverName"] != "" && d["toolName"] != "" {
			e.Tool = mcpName(d["serverName"] + "_" + d["toolName"])
		}
		text = firstOf(d["toolDisplayName"], d["toolName"], text)
	case "info":
		switch d["title"] {
		case "Confirm Web Fetch":
			e.Tool = ToolWebFetch
		case "Enter Plan Mode":
			e.Tool = ToolEnterPlan
		}
		text = firstOf(d["urls"], d["prompt"], text)
	case "ask_user", "exit_plan_mode":
		// The details hold no question and no plan, only a title: the
		// BeforeTool just before named them (ag-fold keeps its text).
		e.Tool, e.Attention = ToolAskUser, event.AttnQuestion
		if d["type"] == "exit_plan_mode" {
			e.Tool, e.Attention = ToolExitPlan, event.AttnPlan
		}
		return
	}
	e.Text = event.Clamp(firstOf(text, message), maxText)
}

// mcpName is the name Gemini gives a server's tool (mcp_<server>_<tool>,
// characters a function name cannot hold as "_"), so the wait names the
// tool as BeforeTool did.
func mcpName(s string) string {
	if !strings.HasPrefix(s, "mcp_") {
		s = "mcp_" + s
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.:", r) {
			return r
		}
		return '_'
	}, s)
}

// failed: AfterTool's tool_response carries a non-null "error".
func failed(resp []byte) bool {
	bad := false
	jsonscan.Members(resp, func(k string, v []byte) error {
		if k == "error" && jsonscan.Text(v) != "" {
			bad = true
		}
		return nil
	})
	return bad
}

// ToolSummary is the short text that says what a tool call does: the
// shell command whole, else the file, directory, pattern, URL or question
// (tool_input as Gemini's tools take it; the transcript's args are the
// same object).
func ToolSummary(tool string, input []byte) string {
	in := map[string][]byte{}
	if jsonscan.Members(input, func(k string, v []byte) error { in[k] = v; return nil }) != nil {
		return ""
	}
	if tool == ToolShell {
		return event.Clamp(jsonscan.Text(in["command"]), maxText)
	}
	if q := questions(in["questions"]); q != "" {
		return q
	}
	for _, k := range []string{"command", "file_path", "absolute_path", "dir_path", "path", "pattern", "url", "query", "prompt", "plan_filename", "description", "reason"} {
		if s := strings.TrimSpace(jsonscan.Text(in[k])); s != "" {
			return event.Clamp(firstLine(s), maxSummary)
		}
	}
	return ""
}

// ToolOptions is the choices of ask_user's one question, the rows of its
// picker: a choice question's options, a yesno question's Yes and No (the
// rows Gemini 0.61.0 draws for it). A text question, or several (tabs),
// have none.
func ToolOptions(tool string, input []byte) []string {
	if tool != ToolAskUser {
		return nil
	}
	var qs []byte
	jsonscan.Members(input, func(k string, v []byte) error {
		if k == "questions" {
			qs = v
		}
		return nil
	})
	yesno, n := false, 0
	jsonscan.Elements(qs, func(q []byte) error {
		n++
		yesno = toolargs.Field(q, "type") == "yesno"
		return nil
	})
	if yesno && n == 1 {
		return []string{"Yes", "No"}
	}
	return toolargs.QuestionOptions(qs)
}

// planText is the plan exit_plan_mode asks about: the file the model
// wrote in the session's plans folder (tmp/<project>/<session>/plans/,
// beside chats/ — Gemini's default), read here since no payload carries
// its text; "" when it is not there. At most maxPlan bytes are read.
func planText(transcript, session string, input []byte) string {
	var name string
	jsonscan.Members(input, func(k string, v []byte) error {
		if k == "plan_filename" {
			name = jsonscan.Text(v)
		}
		return nil
	})
	if name == "" || !filepath.IsLocal(name) || !filepath.IsLocal(session) || strings.ContainsAny(session, `/\`) ||
		filepath.Base(filepath.Dir(transcript)) != "chats" {
		return ""
	}
	f, err := os.Open(filepath.Join(filepath.Dir(filepath.Dir(transcript)), session, "plans", name))
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxPlan))
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, nil)
	}
	return event.Clamp(strings.TrimSpace(string(b)), maxText)
}

const maxPlan = 8 << 10

// questions joins ask_user's questions, one a line.
func questions(raw []byte) string {
	var lines []string
	jsonscan.Elements(raw, func(q []byte) error {
		return jsonscan.Members(q, func(k string, v []byte) error {
			if s := jsonscan.Text(v); k == "question" && s != "" {
				lines = append(lines, s)
			}
			return nil
		})
	})
	return event.Clamp(strings.Join(lines, "\n"), maxText)
}

func firstOf(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}
