package serve

import (
	"regexp"
	"strings"
	"time"
)

// The markers a prompt scripts the fake model with, in every wire format:
//
//	RUN: <command>      call the client's shell tool with <command> (where
//	                    the format can ask for escalated permissions, ask)
//	RUNSAFE: <command>  the same call, asking for no escalation
//	FAIL: <message>     answer with an API error (400: not retried)
//	SLOW:<duration>     hold the reply that long after the stream's first
//	                    event, so the agent is observably working
//	                    (SLOW alone: DefaultSlow)
//
// A fake may add markers for tools only its client has (Claude's ASK:).
var (
	runRe  = regexp.MustCompile(`(?m)\b(RUN|RUNSAFE):[ \t]*(\S[^\r\n]*)`)
	failRe = regexp.MustCompile(`(?m)\bFAIL:[ \t]*(\S[^\r\n]*)`)
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
	Text    string        // the text reply otherwise
	Fail    string        // answer with an API error saying this
	Delay   time.Duration // hold the reply this long after the first event
}

// Plan is the reply to the user's prompt: an error for FAIL:, a shell call
// for RUN: or RUNSAFE:, else the text "FAKE-REPLY: <its last line>"; SLOW
// holds any of them.
func Plan(prompt string) Script {
	sc := Script{Prompt: prompt, Delay: Slow(prompt)}
	if sc.Fail = Fail(prompt); sc.Fail != "" {
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

// Reply is how the request log shows sc's reply: "text", "error <msg>" or
// "call:<tool> <command>", with " delay=<d>" when held.
func (sc Script) Reply(tool string) string {
	var s string
	switch {
	case sc.Fail != "":
		s = "error " + Clamp(sc.Fail, 60)
	case sc.Command != "":
		s = "call:" + tool + " " + sc.Command
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

// Total is In + Out.
func (u Usage) Total() int64 { return u.In + u.Out }

var blockRe = regexp.MustCompile(`^<([A-Za-z_][\w-]*)[^>]*>[\s\S]*</([A-Za-z_][\w-]*)>$`)

// Injected reports whether a text part is wholly one <tag>...</tag>
// block: context a client adds to the user's message
// (<session_context>, <system-reminder>, ...), never what was typed.
func Injected(text string) bool {
	m := blockRe.FindStringSubmatch(strings.TrimSpace(text))
	return m != nil && m[1] == m[2]
}
