package event

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// The codec is written by hand: every ag stage decodes and encodes each line,
// and a reflection-based decoder costs ~3 µs a line where this costs well
// under one (see BenchmarkDecode). It knows exactly the protocol's members;
// anything else is kept verbatim in Extra.

// Decode parses one line into e, replacing its contents.
func Decode(line []byte, e *Event) error {
	*e = Event{}
	d := decoder{b: line}
	d.space()
	if d.peek() != '{' {
		return d.errf("not a JSON object")
	}
	if err := d.object(func(key []byte) error { return d.member(e, key) }); err != nil {
		return err
	}
	d.space()
	if d.i != len(d.b) {
		return d.errf("trailing data after the object")
	}
	return nil
}

type decoder struct {
	b     []byte
	i     int
	depth int
}

const maxDepth = 200

// SyntaxError is a decoding error with the byte offset where it happened.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg) }

func (d *decoder) errf(format string, a ...any) error {
	return &SyntaxError{Offset: d.i, Msg: fmt.Sprintf(format, a...)}
}

func (d *decoder) peek() byte {
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *decoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// object walks {"k":v,...}, calling f with each key and d positioned at the value.
func (d *decoder) object(f func(key []byte) error) error {
	d.depth++
	if d.depth > maxDepth {
		return d.errf("nested too deeply")
	}
	defer func() { d.depth-- }()
	d.i++ // '{'
	d.space()
	if d.peek() == '}' {
		d.i++
		return nil
	}
	for {
		d.space()
		if d.peek() != '"' {
			return d.errf("want a member name")
		}
		start := d.i
		key, special, err := d.rawString()
		if err != nil {
			return err
		}
		if special {
			if _, err := unquote(key, start); err != nil {
				return err
			}
		}
		d.space()
		if d.peek() != ':' {
			return d.errf("want ':' after member name")
		}
		d.i++
		d.space()
		if err := f(key); err != nil {
			return err
		}
		d.space()
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return d.errf("want ',' or '}' in object")
		}
	}
}

// plain marks the bytes a string may hold with no special handling.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// rawString returns the bytes between the quotes, escapes still in place,
// and whether they need unquoting (escapes or non-ASCII).
func (d *decoder) rawString() ([]byte, bool, error) {
	start := d.i
	b := d.b
	i := d.i + 1
	special := false
	for {
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			d.i = len(b)
			return nil, false, d.errf("unterminated string")
		}
		switch c := b[i]; {
		case c == '"':
			d.i = i + 1
			return b[start+1 : i], special, nil
		case c == '\\':
			special = true
			i += 2
		case c < 0x20:
			d.i = i
			return nil, false, d.errf("control character in string")
		default:
			special = true
			i++
		}
	}
}

// known interns the protocol's common values, so decoding them allocates nothing.
var known = func() map[string]string {
	m := map[string]string{}
	for _, k := range Kinds {
		m[k] = k
	}
	for _, s := range []string{SrcHook, SrcLog, SrcPane, SrcProc, SrcStatusline, SrcFold, SrcNotify, SrcKeys,
		AttnPermission, AttnQuestion, AttnPlan, StatusIdle, StatusWorking, StatusWaiting, StatusDone,
		StatusFailed, StatusGone, "claude", "codex", "cursor", "opencode", "pi", "omp", "gemini",
		"antigravity", "copilot", "Bash", "Read", "Edit", "Write"} {
		m[s] = s
	}
	return m
}()

// str decodes a JSON string value.
func (d *decoder) str() (string, error) {
	if d.peek() != '"' {
		if d.literal("null") {
			return "", nil
		}
		return "", d.errf("want a string")
	}
	start := d.i
	raw, special, err := d.rawString()
	if err != nil {
		return "", err
	}
	if special {
		return unquote(raw, start)
	}
	if len(raw) <= 16 {
		if s, ok := known[string(raw)]; ok {
			return s, nil
		}
	}
	return string(raw), nil
}

func unquote(raw []byte, off int) (string, error) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(raw[i:])
			out = utf8.AppendRune(out, r) // invalid bytes become U+FFFD
			i += n
			continue
		}
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(raw) {
			return "", &SyntaxError{off + i, "bad escape"}
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			out = append(out, raw[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw, i+2)
			if !ok {
				return "", &SyntaxError{off + i, "bad \\u escape"}
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(raw, i+2); ok && i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						out = utf8.AppendRune(out, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", &SyntaxError{off + i, "bad escape"}
		}
		i += 2
	}
	return string(out), nil
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func (d *decoder) literal(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// number returns the raw bytes of a JSON number, checked against RFC 8259's grammar.
func (d *decoder) number() ([]byte, error) {
	start := d.i
	b := d.b
	i := d.i
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return nil, d.errf("want a number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return nil, d.errf("bad number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, d.errf("bad number")
		}
	}
	d.i = i
	return b[start:i], nil
}

func (d *decoder) int() (int64, error) {
	if d.literal("null") {
		return 0, nil
	}
	start := d.i
	raw, err := d.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(raw), 64)
		if ferr != nil || f != float64(int64(f)) {
			return 0, &SyntaxError{start, fmt.Sprintf("want an integer, got %s", raw)}
		}
		n = int64(f)
	}
	return n, nil
}

func (d *decoder) float() (float64, error) {
	start := d.i
	raw, err := d.number()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, &SyntaxError{start, fmt.Sprintf("bad number %s", raw)}
	}
	return f, nil
}

func (d *decoder) time() (Time, error) {
	start := d.i
	s, err := d.str()
	if err != nil || s == "" {
		return Time{}, err
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return Time{}, &SyntaxError{start, fmt.Sprintf("bad time %q: want RFC 3339", s)}
	}
	return Time{t}, nil
}

// skip steps over one value of any type, checking its syntax.
func (d *decoder) skip() error {
	switch c := d.peek(); {
	case c == '"':
		return d.checkedString()
	case c == '{':
		return d.object(func([]byte) error { return d.skip() })
	case c == '[':
		return d.array(d.skip)
	case c == 't':
		return d.lit("true")
	case c == 'f':
		return d.lit("false")
	case c == 'n':
		return d.lit("null")
	default:
		_, err := d.number()
		return err
	}
}

// checkedString steps over a string whose escapes must be valid, since
// unknown members are copied to the output as they are.
func (d *decoder) checkedString() error {
	start := d.i
	raw, special, err := d.rawString()
	if err == nil && special {
		_, err = unquote(raw, start)
	}
	return err
}

func (d *decoder) lit(s string) error {
	if !d.literal(s) {
		return d.errf("want %s", s)
	}
	return nil
}

func (d *decoder) array(f func() error) error {
	if d.literal("null") {
		return nil
	}
	if d.peek() != '[' {
		return d.errf("want an array")
	}
	d.depth++
	if d.depth > maxDepth {
		return d.errf("nested too deeply")
	}
	defer func() { d.depth-- }()
	d.i++
	d.space()
	if d.peek() == ']' {
		d.i++
		return nil
	}
	for {
		d.space()
		if err := f(); err != nil {
			return err
		}
		d.space()
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return d.errf("want ',' or ']' in array")
		}
	}
}

// obj decodes an object value (or null) member by member.
func (d *decoder) obj(f func(key []byte) error) error {
	if d.literal("null") {
		return nil
	}
	if d.peek() != '{' {
		return d.errf("want an object")
	}
	return d.object(f)
}

func (d *decoder) member(e *Event, key []byte) (err error) {
	switch string(key) {
	case "v":
		var n int64
		n, err = d.int()
		e.V = int(n)
	case "t":
		e.T, err = d.time()
	case "kind":
		e.Kind, err = d.str()
	case "agent":
		e.Agent, err = d.str()
	case "session":
		e.Session, err = d.str()
	case "src":
		e.Src, err = d.str()
	case "id":
		e.ID, err = d.str()
	case "run":
		e.Run, err = d.str()
	case "pid":
		var n int64
		n, err = d.int()
		e.PID = int(n)
	case "tty":
		e.TTY, err = d.str()
	case "pane":
		e.Pane, err = d.str()
	case "host":
		e.Host, err = d.str()
	case "cwd":
		e.Cwd, err = d.str()
	case "branch":
		e.Branch, err = d.str()
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
		e.Transcript, err = d.str()
	case "sub":
		e.Sub, err = d.str()
	case "prompt":
		e.Prompt, err = d.str()
	case "pending":
		var n int64
		n, err = d.int()
		e.Pending = int(n)
	case "backend":
		e.Backend, err = d.str()
	case "ref":
		e.Ref, err = d.str()
	case "model":
		e.Model, err = d.str()
	case "tokens":
		if d.literal("null") {
			return nil
		}
		e.Tokens = new(Tokens)
		err = d.obj(func(k []byte) error { return d.tokens(e.Tokens, k) })
	case "context":
		if d.literal("null") {
			return nil
		}
		e.Context = new(Context)
		err = d.obj(func(k []byte) error { return d.context(e.Context, k) })
	case "cost_usd":
		if d.literal("null") {
			return nil
		}
		var f float64
		f, err = d.float()
		e.CostUSD = &f
	case "limits":
		err = d.array(func() error {
			var l Limit
			if err := d.obj(func(k []byte) error { return d.limit(&l, k) }); err != nil {
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
		e.Gen, err = d.int()
	case "token":
		e.Token, err = d.str()
	case "action":
		e.Action, err = d.str()
	default:
		start := d.i
		if err = d.skip(); err != nil {
			return err
		}
		if len(e.Extra) > 0 {
			e.Extra = append(e.Extra, ',')
		}
		e.Extra = append(e.Extra, '"')
		e.Extra = append(e.Extra, key...)
		e.Extra = append(e.Extra, '"', ':')
		e.Extra = append(e.Extra, d.b[start:d.i]...)
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
		t.In, err = d.int()
	case "out":
		t.Out, err = d.int()
	case "cache_read":
		t.CacheRead, err = d.int()
	case "cache_write":
		t.CacheWrite, err = d.int()
	default:
		err = d.skip()
	}
	return err
}

func (d *decoder) context(c *Context, key []byte) (err error) {
	switch string(key) {
	case "used":
		c.Used, err = d.int()
	case "size":
		c.Size, err = d.int()
	case "left_pct":
		if d.literal("null") {
			return nil
		}
		var n int64
		n, err = d.int()
		p := int(n)
		c.LeftPct = &p
	default:
		err = d.skip()
	}
	return err
}

func (d *decoder) limit(l *Limit, key []byte) (err error) {
	switch string(key) {
	case "window":
		l.Window, err = d.str()
	case "used_pct":
		if d.literal("null") {
			return nil
		}
		l.UsedPct, err = d.float()
	case "minutes":
		var n int64
		n, err = d.int()
		l.Minutes = int(n)
	case "resets_at":
		var t Time
		t, err = d.time()
		if !t.IsZero() {
			l.ResetsAt = &t
		}
	default:
		err = d.skip()
	}
	return err
}
