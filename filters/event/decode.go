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
// A Decoder does that and more, for a stream.
func Decode(line []byte, e *Event) error {
	m := Decoder{last: [nSticky]string{e.Session, e.Cwd, e.Branch, e.Transcript, e.Run, e.Model, e.Host, e.TTY, e.Pane}}
	return m.Decode(line, e)
}

// A Decoder decodes the lines of one stream. It remembers the last value
// of each member that repeats from event to event (session, cwd,
// transcript, ...) and whether it was written plainly (ASCII, no
// escapes): a line with that value again is compared with it, not
// scanned, and allocates nothing. Those strings are a third of an
// event's bytes. The zero Decoder is ready to use.
type Decoder struct {
	last  [nSticky]string
	plain uint16 // bit i: last[i] was decoded from a plain string
}

// Decode parses one line into e, replacing its contents.
func (m *Decoder) Decode(line []byte, e *Event) error {
	// The memory is copied in and out, so that the decoder (which its
	// callbacks capture) holds no pointer that would move m to the heap.
	d := decoder{Scanner: jsonscan.Scanner{B: line}, memo: *m}
	defer func() { *m = d.memo }()
	*e = Event{}
	d.Space()
	if d.Peek() != '{' {
		return d.Errorf("not a JSON object")
	}
	d.I++
	for n := 0; ; n++ {
		key, more, err := d.Member(n)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if err := d.member(e, key); err != nil {
			return err
		}
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
	memo Decoder
}

// The members an event most often shares with the one before, by their
// place in Decoder.last.
const (
	stSession = iota
	stCwd
	stBranch
	stTranscript
	stRun
	stModel
	stHost
	stTTY
	stPane
	nSticky
)

// same decodes the string of sticky member i: the last value again, not
// scanned, when the bytes are that value and it was plain (then no byte of
// it can be a quote or an escape, so the quote after it ends the string).
func (d *decoder) same(i int) (string, error) {
	m := &d.memo
	old := m.last[i]
	if m.plain&(1<<i) != 0 {
		if j := d.I + 1 + len(old); j < len(d.B) && d.B[d.I] == '"' && d.B[j] == '"' && string(d.B[d.I+1:j]) == old {
			d.I = j + 1
			return old, nil
		}
	}
	s, plain, err := d.string(old)
	if err == nil && s != "" {
		m.last[i] = s
		m.plain &^= 1 << i
		if plain {
			m.plain |= 1 << i
		}
	}
	return s, err
}

// SyntaxError is a decoding error with the byte offset where it happened.
type SyntaxError = jsonscan.SyntaxError

// interned are the protocol's common values (kinds, sources, statuses,
// agents, tools), so decoding them allocates nothing.
var interned = [...]string{
	"Bash", "Edit", "Read", "Write", "action", "antigravity", "auto", "background", "claude", "codex", "copilot",
	"cursor", "done", "failed", "fold", "gemini", "gone", "hook", "host.down", "idle", "interrupt",
	"keys", "log", "manual", "mark", "meter", "notify", "omp", "opencode", "pane", "permission", "pi", "plan",
	"proc", "proc.down", "proc.up", "question", "session.end", "session.start", "state",
	"statusline", "tool.end", "tool.start", "turn.end", "turn.fail", "turn.start", "wait",
	"wait.end", "waiting", "working",
}

// internAt finds an interned string by a hash of its length and two of its
// bytes: slot i+1 names interned[i], 0 is empty, collisions probe on. A
// binary search, six string comparisons a value, was a twentieth of
// ag-fold's replay; building this at start costs well under a
// microsecond, where a map would allocate.
var internAt = func() (t [256]uint8) {
	for i, s := range interned {
		h := internHash([]byte(s))
		for t[h] != 0 {
			h = (h + 1) & 255
		}
		t[h] = uint8(i + 1)
	}
	return t
}()

func internHash(raw []byte) uint8 {
	n := len(raw)
	return uint8(n*37) ^ raw[0]*3 ^ raw[n-1]*11 ^ raw[n/2]
}

// intern returns raw as one of the interned strings, if it is one.
func intern(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	for h := internHash(raw); internAt[h] != 0; h++ {
		if s := interned[internAt[h]-1]; s == string(raw) {
			return s, true
		}
	}
	return "", false
}

// str decodes a JSON string value.
func (d *decoder) str() (string, error) { return d.strOr("") }

// strOr is str, giving old itself when the value is old written plainly
// (no escapes): a string the event before had, not allocated again.
func (d *decoder) strOr(old string) (string, error) {
	s, _, err := d.string(old)
	return s, err
}

// string is strOr, saying too whether the value was plain (ASCII, no
// escapes).
func (d *decoder) string(old string) (s string, plain bool, err error) {
	if d.Peek() != '"' {
		if d.Literal("null") {
			return "", false, nil
		}
		return "", false, d.Errorf("want a string")
	}
	start := d.I
	raw, special, err := d.RawString()
	if err != nil {
		return "", false, err
	}
	if special {
		s, err = jsonscan.Unquote(raw, start+1)
		return s, false, err
	}
	if old != "" && string(raw) == old {
		return old, true, nil
	}
	if len(raw) <= 16 {
		if s, ok := intern(raw); ok {
			return s, true, nil
		}
	}
	return string(raw), true, nil
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
		e.Session, err = d.same(stSession)
	case "src":
		e.Src, err = d.str()
	case "id":
		e.ID, err = d.str()
	case "run":
		e.Run, err = d.same(stRun)
	case "pid":
		var n int64
		n, err = d.Int()
		e.PID = int(n)
	case "tty":
		e.TTY, err = d.same(stTTY)
	case "pane":
		e.Pane, err = d.same(stPane)
	case "host":
		e.Host, err = d.same(stHost)
	case "cwd":
		e.Cwd, err = d.same(stCwd)
	case "branch":
		e.Branch, err = d.same(stBranch)
	case "tool":
		e.Tool, err = d.str()
	case "tool_id":
		e.ToolID, err = d.str()
	case "attention":
		e.Attention, err = d.str()
	case "text":
		e.Text, err = d.str()
	case "options":
		err = d.Array(func() error {
			o, err := d.str()
			e.Options = append(e.Options, o)
			return err
		})
	case "reason":
		e.Reason, err = d.str()
	case "why":
		e.Why, err = d.str()
	case "argv0":
		e.Argv0, err = d.str()
	case "where":
		e.Where, err = d.str()
	case "job":
		e.Job, err = d.str()
	case "mode":
		e.Mode, err = d.str()
	case "transcript":
		e.Transcript, err = d.same(stTranscript)
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
		e.Model, err = d.same(stModel)
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
