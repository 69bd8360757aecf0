package event

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/agwatch/ag/filters/jsonscan"
)

// AppendJSON appends e's encoding and a newline to b. Members are written in
// a fixed order; empty optional members are left out; Extra goes last.
func AppendJSON(b []byte, e *Event) []byte { return appendJSON(b, e, nil) }

// An Encoder encodes the events of one stream, as AppendJSON does. It
// remembers the last value of each member that repeats from event to event
// (session, cwd, transcript, ...) when it needed no escape, and writes it
// again without looking for one: a file's events share a third of their
// bytes. The zero Encoder is ready to use.
type Encoder struct {
	plain [nSticky]string
	sec   int64    // the second of the last time written,
	stamp [20]byte // and its "2006-01-02T15:04:05." (stamp[19] != 0 once set)
}

// appendTime writes t as appendTime does, copying the date and clock of a
// time in the same second as the one before instead of computing them (a
// file's events come seconds apart); m may be nil.
func (m *Encoder) appendTime(b []byte, t time.Time) []byte {
	if m == nil {
		return appendTime(b, t)
	}
	sec := t.Unix()
	if sec != m.sec || m.stamp[19] == 0 {
		n := len(b)
		b = appendTime(b, t)
		if len(b)-n != len("2006-01-02T15:04:05.000Z") || b[n+19] != '.' {
			m.stamp[19] = 0
			return b
		}
		m.sec = sec
		copy(m.stamp[:], b[n:n+20])
		return b
	}
	ms := t.Nanosecond() / 1e6
	b = append(b, m.stamp[:]...)
	return append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// Append appends e's encoding and a newline to b.
func (m *Encoder) Append(b []byte, e *Event) []byte { return appendJSON(b, e, m) }

// appendSticky writes sticky member i; m may be nil.
func appendSticky(b []byte, key, val string, m *Encoder, i int) []byte {
	if val == "" {
		return b
	}
	if m == nil {
		return appendStr(b, key, val, false)
	}
	if val != m.plain[i] {
		m.plain[i] = ""
		if jsonscan.PlainRun(val, 0) != len(val) {
			return appendStr(b, key, val, false)
		}
		m.plain[i] = val
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':', '"')
	b = append(b, val...)
	return append(b, '"')
}

func appendJSON(b []byte, e *Event, m *Encoder) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(e.V), 10)
	b = append(b, `,"t":"`...)
	if !e.T.IsZero() {
		b = m.appendTime(b, e.T.Time)
	}
	b = append(b, '"')
	b = appendStr(b, "kind", e.Kind, true)
	b = appendStr(b, "agent", e.Agent, false)
	if e.Session == "" {
		b = append(b, `,"session":""`...)
	}
	b = appendSticky(b, "session", e.Session, m, stSession)
	b = appendStr(b, "src", e.Src, false)
	b = appendStr(b, "id", e.ID, false)
	b = appendSticky(b, "run", e.Run, m, stRun)
	if e.PID != 0 {
		b = append(b, `,"pid":`...)
		b = strconv.AppendInt(b, int64(e.PID), 10)
	}
	b = appendSticky(b, "tty", e.TTY, m, stTTY)
	b = appendSticky(b, "pane", e.Pane, m, stPane)
	b = appendSticky(b, "host", e.Host, m, stHost)
	b = appendSticky(b, "cwd", e.Cwd, m, stCwd)
	b = appendSticky(b, "branch", e.Branch, m, stBranch)
	b = appendStr(b, "argv0", e.Argv0, false)
	b = appendStr(b, "where", e.Where, false)
	b = appendStr(b, "job", e.Job, false)
	b = appendSticky(b, "transcript", e.Transcript, m, stTranscript)
	b = appendStr(b, "sub", e.Sub, false)
	b = appendStr(b, "status", e.Status, false)
	b = appendStr(b, "mode", e.Mode, false)
	b = appendStr(b, "attention", e.Attention, false)
	b = appendStr(b, "tool", e.Tool, false)
	b = appendStr(b, "tool_id", e.ToolID, false)
	b = appendStr(b, "action", e.Action, false)
	b = appendStr(b, "text", e.Text, false)
	if len(e.Options) > 0 {
		b = append(b, `,"options":[`...)
		for i, o := range e.Options {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, o)
		}
		b = append(b, ']')
	}
	b = appendStr(b, "reason", e.Reason, false)
	b = appendStr(b, "why", e.Why, false)
	b = appendStr(b, "prompt", e.Prompt, false)
	if e.Pending != 0 {
		b = append(b, `,"pending":`...)
		b = strconv.AppendInt(b, int64(e.Pending), 10)
	}
	b = appendStr(b, "backend", e.Backend, false)
	b = appendStr(b, "ref", e.Ref, false)
	if e.Since != nil && !e.Since.IsZero() {
		b = append(b, `,"since":"`...)
		b = appendTime(b, e.Since.Time)
		b = append(b, '"')
	}
	if e.Gen != 0 {
		b = append(b, `,"gen":`...)
		b = strconv.AppendInt(b, e.Gen, 10)
	}
	b = appendStr(b, "token", e.Token, false)
	if e.Ambiguous {
		b = append(b, `,"ambiguous":true`...)
	}
	b = appendStr(b, "stale", e.Stale, false)
	b = appendSticky(b, "model", e.Model, m, stModel)
	if t := e.Tokens; t != nil {
		b = append(b, `,"tokens":{"in":`...)
		b = strconv.AppendInt(b, t.In, 10)
		b = append(b, `,"out":`...)
		b = strconv.AppendInt(b, t.Out, 10)
		b = append(b, `,"cache_read":`...)
		b = strconv.AppendInt(b, t.CacheRead, 10)
		b = append(b, `,"cache_write":`...)
		b = strconv.AppendInt(b, t.CacheWrite, 10)
		b = append(b, '}')
	}
	if c := e.Context; c != nil {
		b = append(b, `,"context":{"used":`...)
		b = strconv.AppendInt(b, c.Used, 10)
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, c.Size, 10)
		if c.LeftPct != nil {
			b = append(b, `,"left_pct":`...)
			b = strconv.AppendInt(b, int64(*c.LeftPct), 10)
		}
		b = append(b, '}')
	}
	if e.CostUSD != nil {
		b = append(b, `,"cost_usd":`...)
		b = appendFloat(b, *e.CostUSD)
	}
	if len(e.Limits) > 0 {
		b = append(b, `,"limits":[`...)
		for i, l := range e.Limits {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"window":`...)
			b = appendQuoted(b, l.Window)
			b = append(b, `,"used_pct":`...)
			b = appendFloat(b, l.UsedPct)
			if l.Minutes != 0 {
				b = append(b, `,"minutes":`...)
				b = strconv.AppendInt(b, int64(l.Minutes), 10)
			}
			if l.ResetsAt != nil && !l.ResetsAt.IsZero() {
				b = append(b, `,"resets_at":"`...)
				b = appendTime(b, l.ResetsAt.Time)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendStr(b, "sig", e.Sig, false)
	if len(e.Extra) > 0 {
		b = append(b, ',')
		b = append(b, e.Extra...)
	}
	return append(b, '}', '\n')
}

// Marshal returns e as one line with its newline.
func Marshal(e *Event) []byte { return AppendJSON(nil, e) }

func appendStr(b []byte, key, val string, always bool) []byte {
	if val == "" && !always {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendQuoted(b, val)
}

func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

const hexDigits = "0123456789abcdef"

// appendQuoted writes s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = jsonscan.PlainRun(s, i); i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += n
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendTime writes t in Layout (UTC, milliseconds) without going through
// time.Format's general machinery: every event carries at least one time.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, Layout)
	}
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+int(mo)/10), byte('0'+int(mo)%10), '-', byte('0'+d/10), byte('0'+d%10), 'T',
		byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
	return b
}

// AppendString appends s as a JSON string, escaped as events are.
func AppendString(b []byte, s string) []byte { return appendQuoted(b, s) }
