package event

import (
	"fmt"

	"github.com/agwatch/ag/filters/jsonscan"
)

// The codec is written by hand: every ag stage decodes and encodes each line,
// and a reflection-based decoder costs ~3 µs a line where this costs well
// under one (see BenchmarkDecode). It knows exactly the protocol's members;
// anything else is kept verbatim in Extra.

// Decode parses one line into e, replacing its contents. A reader that
// decodes line after line into the same e allocates nothing for the
// members that repeat from one event to the next (session, cwd,
// transcript, ...): e's old strings are kept when the bytes are the same.
func Decode(line []byte, e *Event) error {
	d := decoder{Scanner: jsonscan.Scanner{B: line}, prev: sticky{e.Session, e.Cwd, e.Branch, e.Transcript, e.Run, e.Model, e.Host, e.TTY, e.Pane}}
	*e = Event{}
	d.Space()
	if d.Peek() != '{' {
		return d.Errorf("not a JSON object")
	}
	if err := d.Object(func(key []byte) error { return d.member(e, key) }); err != nil {
		return err
	}
	d.Space()
	if d.I != len(d.B) {
		return d.Errorf("trailing data after the object")
	}
	return nil
}

// decoder is the event codec's scanner: jsonscan's, with strings interned.
type decoder struct {
	jsonscan.Scanner
	prev sticky
}

// sticky are the members an event most often shares with the one before.
type sticky struct{ session, cwd, branch, transcript, run, model, host, tty, pane string }

// same decodes a string, which is old's value again if the bytes are.
func (d *decoder) same(old string) (string, error) {
	return d.strOr(old)
}

// SyntaxError is a decoding error with the byte offset where it happened.
type SyntaxError = jsonscan.SyntaxError

// interned are the protocol's common values (kinds, sources, statuses,
// agents, tools), sorted, so decoding them allocates nothing. An array of
// constants is laid out by the linker: no start-up cost, which a map has.
var interned = [...]string{
	"Bash", "Edit", "Read", "Write", "action", "antigravity", "claude", "codex", "copilot",
	"cursor", "done", "failed", "fold", "gemini", "gone", "hook", "host.down", "idle", "interrupt",
	"keys", "log", "mark", "meter", "notify", "omp", "opencode", "pane", "permission", "pi", "plan",
	"proc", "proc.down", "proc.up", "question", "session.end", "session.start", "state",
	"statusline", "tool.end", "tool.start", "turn.end", "turn.fail", "turn.start", "wait",
	"wait.end", "waiting", "working",
}

// intern returns raw as one of the interned strings, if it is one.
func intern(raw []byte) (string, bool) {
	lo, hi := 0, len(interned)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if interned[m] < string(raw) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(interned) && interned[lo] == string(raw) {
		return interned[lo], true
	}
	return "", false
}

// str decodes a JSON string value.
func (d *decoder) str() (string, error) { return d.strOr("") }

// strOr is str, giving old itself when the value is old written plainly
// (no escapes): a string the event before had, not allocated again.
func (d *decoder) strOr(old string) (string, error) {
	if d.Peek() != '"' {
		if d.Literal("null") {
			return "", nil
		}
		return "", d.Errorf("want a string")
	}
	start := d.I
	raw, special, err := d.RawString()
	if err != nil {
		return "", err
	}
	if !special && old != "" && string(raw) == old {
		return old, nil
	}
	if special {
		return jsonscan.Unquote(raw, start+1)
	}
	if len(raw) <= 16 {
		if s, ok := intern(raw); ok {
			return s, nil
		}
	}
	return string(raw), nil
}

func (d *decoder) time() (Time, error) {
	start := d.I
	if d.Peek() == '"' {
		// The usual form straight from the line's bytes, no string made.
		if raw, special, err := d.RawString(); err == nil && !special {
			if t, ok := parseUTC(raw); ok {
				return Time{t}, nil
			}
		}
		d.I = start
	}
	s, err := d.str()
	if err != nil || s == "" {
		return Time{}, err
	}
	t, err := ParseTime(s)
	if err != nil {
		return Time{}, &SyntaxError{Offset: start, Msg: fmt.Sprintf("bad time %q: want RFC 3339", s)}
	}
	return Time{t}, nil
}

func (d *decoder) member(e *Event, key []byte) (err error) {
	switch string(key) {
	case "v":
		var n int64
		n, err = d.Int()
		e.V = int(n)
	case "t":
		e.T, err = d.time()
	case "kind":
		e.Kind, err = d.str()
	case "agent":
		e.Agent, err = d.str()
	case "session":
		e.Session, err = d.same(d.prev.session)
	case "src":
		e.Src, err = d.str()
	case "id":
		e.ID, err = d.str()
	case "run":
		e.Run, err = d.same(d.prev.run)
	case "pid":
		var n int64
		n, err = d.Int()
		e.PID = int(n)
	case "tty":
		e.TTY, err = d.same(d.prev.tty)
	case "pane":
		e.Pane, err = d.same(d.prev.pane)
	case "host":
		e.Host, err = d.same(d.prev.host)
	case "cwd":
		e.Cwd, err = d.same(d.prev.cwd)
	case "branch":
		e.Branch, err = d.same(d.prev.branch)
	case "tool":
		e.Tool, err = d.str()
	case "tool_id":
		e.ToolID, err = d.str()
	case "attention":
		e.Attention, err = d.str()
	case "text":
		e.Text, err = d.str()
	case "reason":
		e.Reason, err = d.str()
	case "argv0":
		e.Argv0, err = d.str()
	case "transcript":
		e.Transcript, err = d.same(d.prev.transcript)
	case "sub":
		e.Sub, err = d.str()
	case "prompt":
		e.Prompt, err = d.str()
	case "pending":
		var n int64
		n, err = d.Int()
		e.Pending = int(n)
	case "backend":
		e.Backend, err = d.str()
	case "ref":
		e.Ref, err = d.str()
	case "model":
		e.Model, err = d.same(d.prev.model)
	case "tokens":
		if d.Literal("null") {
			return nil
		}
		e.Tokens = new(Tokens)
		err = d.Obj(func(k []byte) error { return d.tokens(e.Tokens, k) })
	case "context":
		if d.Literal("null") {
			return nil
		}
		e.Context = new(Context)
		err = d.Obj(func(k []byte) error { return d.context(e.Context, k) })
	case "cost_usd":
		if d.Literal("null") {
			return nil
		}
		var f float64
		f, err = d.Float()
		e.CostUSD = &f
	case "limits":
		err = d.Array(func() error {
			var l Limit
			if err := d.Obj(func(k []byte) error { return d.limit(&l, k) }); err != nil {
				return err
			}
			e.Limits = append(e.Limits, l)
			return nil
		})
	case "status":
		e.Status, err = d.str()
	case "since":
		var t Time
		t, err = d.time()
		if !t.IsZero() {
			e.Since = &t
		}
	case "gen":
		e.Gen, err = d.Int()
	case "token":
		e.Token, err = d.str()
	case "stale":
		e.Stale, err = d.str()
	case "action":
		e.Action, err = d.str()
	case "ambiguous":
		switch {
		case d.Literal("true"):
			e.Ambiguous = true
		case d.Literal("false"), d.Literal("null"):
		default:
			err = d.Errorf("want true or false")
		}
	case "sig":
		e.Sig, err = d.str()
	default:
		start := d.I
		if err = d.Skip(); err != nil {
			return err
		}
		if len(e.Extra) > 0 {
			e.Extra = append(e.Extra, ',')
		}
		e.Extra = append(e.Extra, '"')
		e.Extra = append(e.Extra, key...)
		e.Extra = append(e.Extra, '"', ':')
		e.Extra = append(e.Extra, d.B[start:d.I]...)
		return nil
	}
	if err != nil {
		if _, ok := err.(*SyntaxError); ok {
			return fmt.Errorf("%q: %w", key, err)
		}
	}
	return err
}

func (d *decoder) tokens(t *Tokens, key []byte) (err error) {
	switch string(key) {
	case "in":
		t.In, err = d.Int()
	case "out":
		t.Out, err = d.Int()
	case "cache_read":
		t.CacheRead, err = d.Int()
	case "cache_write":
		t.CacheWrite, err = d.Int()
	default:
		err = d.Skip()
	}
	return err
}

func (d *decoder) context(c *Context, key []byte) (err error) {
	switch string(key) {
	case "used":
		c.Used, err = d.Int()
	case "size":
		c.Size, err = d.Int()
	case "left_pct":
		if d.Literal("null") {
			return nil
		}
		var n int64
		n, err = d.Int()
		p := int(n)
		c.LeftPct = &p
	default:
		err = d.Skip()
	}
	return err
}

func (d *decoder) limit(l *Limit, key []byte) (err error) {
	switch string(key) {
	case "window":
		l.Window, err = d.str()
	case "used_pct":
		if d.Literal("null") {
			return nil
		}
		l.UsedPct, err = d.Float()
	case "minutes":
		var n int64
		n, err = d.Int()
		l.Minutes = int(n)
	case "resets_at":
		var t Time
		t, err = d.time()
		if !t.IsZero() {
			l.ResetsAt = &t
		}
	default:
		err = d.Skip()
	}
	return err
}
