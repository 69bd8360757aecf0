package serve

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// The markers a prompt scripts the fake model with, in every wire format:
//
//	RUN: <command>      call the client's shell tool with <command> (where
//	                    the format can ask for escalated permissions, ask)
//	RUNSAFE: <command>  the same call, asking for no escalation
//	CALL: <tool> <json> call the offered tool <tool> with the arguments
//	                    <json> (an object on the same line; none: {}),
//	                    for what only some clients have: a question, a
//	                    sub-agent, a plan
//	FAIL: <message>     answer with an API error (400: not retried)
//	SLOW:<duration>     hold the reply that long after the stream's first
//	                    event, so the agent is observably working
//	                    (SLOW alone: DefaultSlow)
//
// A fake may add markers for tools only its client has (Claude's ASK:).
var (
	runRe  = regexp.MustCompile(`(?m)\b(RUN|RUNSAFE):[ \t]*(\S[^\r\n]*)`)
	failRe = regexp.MustCompile(`(?m)\bFAIL:[ \t]*(\S[^\r\n]*)`)
	callRe = regexp.MustCompile(`(?m)\bCALL:[ \t]*([A-Za-z_][\w.-]*)[ \t]*([^\r\n]*)`)
	slowRe = regexp.MustCompile(`\bSLOW(?::([0-9.]+(?:ms|s)))?\b`)
)

// DefaultSlow is the delay of a bare SLOW marker.
const DefaultSlow = 3 * time.Second

// ToolDone is the text reply to a tool's result.
const ToolDone = "FAKE-DONE: tool result received"

// Slow is the delay a SLOW marker in text asks for, 0 without one.
func Slow(text string) time.Duration {
	m := slowRe.FindStringSubmatch(text)
	if m == nil {
		return 0
	}
	if m[1] != "" {
		if d, err := time.ParseDuration(m[1]); err == nil {
			return d
		}
	}
	return DefaultSlow
}

// Fail is the message of a FAIL: marker in text, "" without one.
func Fail(text string) string {
	if m := failRe.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// Run is the command of the first RUN: or RUNSAFE: marker in text ("" if
// none), and whether it was RUNSAFE:.
func Run(text string) (cmd string, safe bool) {
	if m := runRe.FindStringSubmatch(text); m != nil {
		return strings.TrimSpace(m[2]), m[1] == "RUNSAFE"
	}
	return "", false
}

// Script is what the fake model does for one request.
type Script struct {
	Prompt  string        // the user text the reply answers ("" after a tool result)
	Command string        // call the shell tool with this when set
	Safe    bool          // the command came from RUNSAFE:
	Tool    string        // else call this tool (CALL:) ...
	Args    string        // ... with these arguments, as written
	Text    string        // the text reply otherwise
	Fail    string        // answer with an API error saying this
	Delay   time.Duration // hold the reply this long after the first event
}

// Plan is the reply to the user's prompt: an error for FAIL:, the call
// CALL: names, a shell call for RUN: or RUNSAFE:, else the text
// "FAKE-REPLY: <its last line>"; SLOW holds any of them.
func Plan(prompt string) Script {
	sc := Script{Prompt: prompt, Delay: Slow(prompt)}
	if sc.Fail = Fail(prompt); sc.Fail != "" {
		return sc
	}
	if m := callRe.FindStringSubmatch(prompt); m != nil {
		sc.Tool, sc.Args = m[1], strings.TrimSpace(m[2])
		return sc
	}
	if sc.Command, sc.Safe = Run(prompt); sc.Command != "" {
		return sc
	}
	line := prompt
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	sc.Text = "FAKE-REPLY: " + Clamp(line, 60)
	return sc
}

// ToolCall is a call the fake model makes.
type ToolCall struct {
	Name string
	Args map[string]any
}

// Call is the call sc makes with the tools offered: the shell tool for
// RUN:, the named tool for CALL:. It is nil when sc makes none, and when
// it cannot, sc becomes a text reply that says why (no shell tool, a
// tool not offered, arguments that are not a JSON object).
func (sc *Script) Call(tools []Tool) *ToolCall {
	switch {
	case sc.Command != "":
		if t, ok := ShellTool(tools); ok {
			return &ToolCall{Name: t.Name, Args: t.ShellArgs(sc.Command)}
		}
		sc.Text = "FAKE-REPLY: no shell tool offered"
	case sc.Tool != "":
		args := map[string]any{}
		if sc.Args != "" && (json.Unmarshal([]byte(sc.Args), &args) != nil || args == nil) {
			sc.Text = "FAKE-REPLY: the arguments of CALL: " + sc.Tool + " are not a JSON object"
			break
		}
		for _, t := range tools {
			if t.Name == sc.Tool {
				return &ToolCall{Name: t.Name, Args: args}
			}
		}
		sc.Text = "FAKE-REPLY: no tool " + sc.Tool + " offered"
	default:
		return nil
	}
	sc.Command, sc.Tool = "", ""
	return nil
}

// Reply is how the request log shows the reply: "text", "error <msg>",
// "call:<tool> <command>" or "call:<tool> <arguments>", with
// " delay=<d>" when held.
func (sc Script) Reply(call *ToolCall) string {
	var s string
	switch {
	case sc.Fail != "":
		s = "error " + Clamp(sc.Fail, 60)
	case call != nil && sc.Command != "":
		s = "call:" + call.Name + " " + sc.Command
	case call != nil:
		s = "call:" + call.Name + " " + Clamp(JSON(call.Args), 60)
	default:
		s = "text"
	}
	if sc.Delay > 0 && sc.Fail == "" {
		s += " delay=" + sc.Delay.String()
	}
	return s
}

// Usage is the token usage a reply reports; In counts Cached.
type Usage struct {
	In, Cached, Out int64
}

// Count is the usage of a reply: fixedIn input tokens, or else ~4 bytes a
// token of the request body, half of them read from a prompt cache (so
// meters that add or keep apart cached tokens are both checked), and the
// reply's output at ~4 bytes a token.
func Count(body []byte, fixedIn int64, sc Script) Usage {
	in := fixedIn
	if in <= 0 {
		in = int64(len(body)/4 + 1)
	}
	return Usage{In: in, Cached: in / 2, Out: int64(len(sc.Text)+len(sc.Command))/4 + 8}
}

// Field is the usage as a field of the request log ("" for none).
func (u Usage) Field() string {
	if u == (Usage{}) {
		return ""
	}
	return fmt.Sprintf("usage=in:%d,cached:%d,out:%d", u.In, u.Cached, u.Out)
}

// Total is In + Out.
func (u Usage) Total() int64 { return u.In + u.Out }

var openRe = regexp.MustCompile(`^<([A-Za-z_][\w-]*)[^<>]*>`)

// Typed is what was typed in a text part: the text without the
// <tag>...</tag> blocks a client puts before it (<session_context>,
// <system-reminder>, <current_datetime>, ...), "" when it is nothing but
// such blocks.
func Typed(text string) string {
	t := strings.TrimSpace(text)
	for {
		m := openRe.FindStringSubmatch(t)
		if m == nil {
			return t
		}
		end := strings.Index(t, "</"+m[1]+">")
		if end < 0 {
			return t
		}
		t = strings.TrimSpace(t[end+len(m[1])+3:])
	}
}
