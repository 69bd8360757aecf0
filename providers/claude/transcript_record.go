package claude

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
)

// record is what the parser needs from one transcript line. Both decoders
// (the fast skimmer and the plain encoding/json one the fuzz test uses as
// its oracle) fill it with the same meaning: a member of the wrong JSON
// type counts as absent, and of duplicate members the last wins.
type record struct {
	Type, Subtype        jstr
	Sidechain, Meta      bool
	CompactSummary       bool
	AgentID, PromptID    jstr
	SessionID, Timestamp jstr
	Cwd, Branch          jstr
	RequestID, UUID      jstr
	InterruptedMessageID jstr
	// APIError marks the message Claude Code writes in the model's place
	// when a request failed for good (isApiErrorMessage); ErrorKind is its
	// "error" when that is a string: rate_limit, authentication_failed, …
	APIError  bool
	ErrorKind jstr
	// Launched is the agentId of a sub-agent this line's tool_result
	// started in the background (toolUseResult status "async_launched").
	Launched jstr
	Msg      message
}

type message struct {
	ID, Model, StopReason jstr
	HasUsage              bool
	Usage                 event.Tokens
	// Content is either a string (Text, IsString) or blocks.
	IsString bool
	Text     jstr
	Blocks   []block
}

type block struct {
	Type, ID, Name, ToolUseID jstr
	IsError                   bool
	Rejected                  bool // tool_result: the user said no at the permission prompt
	Text                      jstr
	Summary                   string // tool_use: the most telling input member
}

// jstr is a JSON string value kept undecoded (raw, without its quotes)
// until something needs it: most text in a transcript is never looked at.
// A decoder that already has the Go string sets dec instead.
type jstr struct {
	raw   []byte
	dec   string
	plain bool // raw is known to hold no escape
}

func (j jstr) String() string {
	if j.raw == nil {
		return j.dec
	}
	return decodeStr(j.raw)
}

// is compares without decoding when it can.
func (j jstr) is(s string) bool {
	if j.raw == nil {
		return j.dec == s
	}
	if string(j.raw) == s {
		return true
	}
	if j.plain || bytes.IndexByte(j.raw, '\\') < 0 {
		return false // plain text differs (s is ASCII)
	}
	return decodeStr(j.raw) == s
}

// or returns prev when j says the same (no allocation), else j decoded.
func (j jstr) or(prev string) string {
	if j.raw != nil && string(j.raw) == prev {
		return prev
	}
	return j.String()
}

// text is the string's bytes when it holds no escape (its raw body),
// else its decoded text: for what is read, not kept (a timestamp).
func (j jstr) text() []byte {
	if j.raw != nil && (j.plain || bytes.IndexByte(j.raw, '\\') < 0) {
		return j.raw
	}
	return []byte(j.String())
}

func (j jstr) empty() bool { return len(j.raw) == 0 && j.dec == "" }

// decodeStr turns a raw JSON string body into Go text, exactly as
// encoding/json would (escapes, invalid UTF-8 → U+FFFD); a body that is
// not a valid string is "".
func decodeStr(raw []byte) string {
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			s, err := jsonscan.Unquote(raw, 0)
			if err != nil {
				return ""
			}
			return s
		}
	}
	return string(raw)
}

// toInt reads a token count from a JSON number's text; anything that is
// not a number counts as 0.
func toInt(num []byte) int64 {
	if len(num) > 0 && len(num) < 19 {
		// Plain digits, most counts: no string made for strconv.
		var n int64
		for _, c := range num {
			if c < '0' || c > '9' {
				n = -1
				break
			}
			n = n*10 + int64(c-'0')
		}
		if n >= 0 {
			return n
		}
	}
	if n, err := strconv.ParseInt(string(num), 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(string(num), 64); err == nil && f == f && f < 1e18 && f > -1e18 {
		return int64(f)
	}
	return 0
}

// pickSummary is the first non-empty value, in summaryKeys order.
func pickSummary(vals []jstr) string {
	for _, v := range vals {
		if s := v.String(); s != "" {
			return clampLog(s)
		}
	}
	return ""
}

// injected are the starts of user-role text Claude Code writes itself:
// slash-command expansions, hook and shell output, reminders, resumed
// context. None of them is a prompt the user typed.
var injected = []string{
	"<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
	"<local-command-stderr>", "<local-command-caveat>", "<system-reminder>", "<bash-input>",
	"<bash-stdout>", "<bash-stderr>", "<task-notification>", "<user-memory-input>",
	"[Request interrupted", "Caveat: The messages below",
	"This session is being continued from a previous conversation",
}

func isInjected(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, p := range injected {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

const interruptMark = "[Request interrupted by user"

// What /model writes to the transcript when it switches the model (Claude
// Code 2.1.197), the model's display name in bold:
// "<local-command-stdout>Set model to \x1b[1mOpus 4.8 (1M context)\x1b[22m
// and saved as your default for new sessions</local-command-stdout>", or
// "… for this session only". The display name is the one place a
// transcript tells the 1M window from the default one.
const modelSetMark = "<local-command-stdout>Set model to "

// modelSet reads the display name /model switched to; "" if text is not
// that line.
func modelSet(text string) string {
	t, ok := strings.CutPrefix(strings.TrimSpace(text), modelSetMark)
	if !ok {
		return ""
	}
	t, _, _ = strings.Cut(t, "</local-command-stdout>")
	t = stripANSI(t)
	for _, tail := range []string{" and saved as ", " for this session"} {
		if i := strings.Index(t, tail); i >= 0 {
			t = t[:i]
		}
	}
	return strings.TrimSpace(t)
}

// stripANSI drops terminal escape sequences (ESC [ … final byte).
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '[' {
			i += 2
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
				i++
			}
		}
	}
	return b.String()
}

// A background sub-agent's end reaches the main transcript as a user
// message (origin task-notification) that resumes the session under a new
// promptId: "<task-notification>\n<task-id>ID</task-id>...<status>completed</status>".
const (
	taskNote   = "<task-notification>"
	taskIDOpen = "<task-id>"
	taskIDEnd  = "</task-id>"
)

// taskNoteID is the task id of a task-notification text ("" if it is not one).
func taskNoteID(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(t, taskNote) {
		return ""
	}
	_, rest, ok := strings.Cut(t, taskIDOpen)
	if !ok {
		return ""
	}
	id, _, ok := strings.Cut(rest, taskIDEnd)
	if !ok {
		return ""
	}
	return strings.TrimSpace(id)
}

// maxLogText bounds the text an event carries.
const maxLogText = 500

func clampLog(s string) string { return event.Clamp(strings.TrimSpace(s), maxLogText) }

// rejectedPrefix opens the tool_result Claude writes when the user denies a
// permission prompt (Escape or "No"); no hook reports that moment.
const rejectedPrefix = "The user doesn't want to proceed with this tool use"

// rejected looks at the raw bytes: decoding a whole tool result (often
// many kilobytes) to read its first words cost a sixth of ag-tail's time.
// The prefix has nothing JSON would escape, so raw and decoded agree.
func rejected(content jstr) bool {
	if content.raw != nil {
		return bytes.HasPrefix(content.raw, []byte(rejectedPrefix))
	}
	return strings.HasPrefix(content.dec, rejectedPrefix)
}
