// Package jsonscan reads JSON by hand: a cursor over the bytes that steps
// through objects, arrays, strings and numbers, checking the syntax as it
// goes (RFC 8259) and allocating only for the strings it returns.
//
// ag's hot paths use it where encoding/json would cost too much: the event
// codec decodes every line of every stage, and a hook process lives for a
// millisecond, in which encoding/json's first use of a type (reflection,
// field caches) alone costs a quarter of one.
package jsonscan

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds nesting, so hostile input cannot exhaust the stack.
const MaxDepth = 200

// Scanner is a position in a JSON text. B is the text, I the offset of
// the next byte to read.
type Scanner struct {
	B     []byte
	I     int
	depth int
}

// SyntaxError is a decoding error with the byte offset where it happened.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg) }

// Errorf is a SyntaxError at the current offset; at the end of the text
// it says so, since that is what a truncated payload looks like.
func (s *Scanner) Errorf(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	if s.I >= len(s.B) {
		msg = "unexpected end of input: " + msg
	}
	return &SyntaxError{Offset: s.I, Msg: msg}
}

// Peek is the next byte, 0 at the end.
func (s *Scanner) Peek() byte {
	if s.I < len(s.B) {
		return s.B[s.I]
	}
	return 0
}

// Space steps over white space.
func (s *Scanner) Space() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Object walks {"k":v,...} (the scanner at its '{'), calling f with each
// key, escapes still in place, and the scanner at the value, which f must
// consume.
func (s *Scanner) Object(f func(key []byte) error) error {
	s.depth++
	if s.depth > MaxDepth {
		return s.Errorf("nested too deeply")
	}
	defer func() { s.depth-- }()
	s.I++ // '{'
	for n := 0; ; n++ {
		key, more, err := s.Member(n)
		if err != nil || !more {
			return err
		}
		if err := f(key); err != nil {
			return err
		}
	}
}

// Member steps to the next member of an object in a loop, for a caller
// that walks one without a callback (the scanner just past the '{'; n
// counts the members already read, whose values the caller consumed):
//
//	for n := 0; ; n++ {
//		key, more, err := s.Member(n)
//		if err != nil || !more { ... }
//		... read the value ...
//	}
//
// It returns the key, escapes still in place, with the scanner at the
// value, or more false past the closing '}'. Compact JSON (every event
// line) is read with one byte compared where white space may be: the
// event decoder's member steps were a seventh of ag-fold's replay.
func (s *Scanner) Member(n int) (key []byte, more bool, err error) {
	b := s.B
	if s.I < len(b) && b[s.I] <= ' ' {
		s.Space()
	}
	if n == 0 {
		if s.I < len(b) && b[s.I] == '}' {
			s.I++
			return nil, false, nil
		}
	} else {
		switch s.Peek() {
		case ',':
			s.I++
			if s.I < len(b) && b[s.I] <= ' ' {
				s.Space()
			}
		case '}':
			s.I++
			return nil, false, nil
		default:
			return nil, false, s.Errorf("want ',' or '}' in object")
		}
	}
	if s.Peek() != '"' {
		return nil, false, s.Errorf("want a member name")
	}
	start := s.I
	key, special, err := s.RawString()
	if err != nil {
		return nil, false, err
	}
	if special {
		if _, err := Unquote(key, start+1); err != nil {
			return nil, false, err
		}
	}
	if s.I < len(b) && b[s.I] == ':' {
		s.I++
	} else {
		s.Space()
		if s.Peek() != ':' {
			return nil, false, s.Errorf("want ':' after member name")
		}
		s.I++
	}
	if s.I < len(b) && b[s.I] <= ' ' {
		s.Space()
	}
	return key, true, nil
}

// Obj is Object for a value that may also be null.
func (s *Scanner) Obj(f func(key []byte) error) error {
	if s.Literal("null") {
		return nil
	}
	if s.Peek() != '{' {
		return s.Errorf("want an object")
	}
	return s.Object(f)
}

// Array walks [v,...] (or null), calling f with the scanner at each value.
func (s *Scanner) Array(f func() error) error {
	if s.Literal("null") {
		return nil
	}
	if s.Peek() != '[' {
		return s.Errorf("want an array")
	}
	s.depth++
	if s.depth > MaxDepth {
		return s.Errorf("nested too deeply")
	}
	defer func() { s.depth-- }()
	s.I++
	s.Space()
	if s.Peek() == ']' {
		s.I++
		return nil
	}
	for {
		s.Space()
		if err := f(); err != nil {
			return err
		}
		s.Space()
		switch s.Peek() {
		case ',':
			s.I++
		case ']':
			s.I++
			return nil
		default:
			return s.Errorf("want ',' or ']' in array")
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

// PlainRun returns the offset of the first byte at or after i in s that
// is not plain (see plain), or len(s): eight bytes at a time, the first
// one found from the word's bit mask. Strings are most of every event
// line and transcript; read a byte at a time, their scan was a quarter of
// ag-fold's decoding (make bench, TestScaleReplay).
func PlainRun[T string | []byte](s T, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// The high bit of each byte below 0x20, equal to '"' or '\\', or
		// past ASCII (exact for the lowest such byte, which is all that
		// is read).
		q, bs := x^(ones*'"'), x^(ones*'\\')
		m := (x-ones*0x20)&^x | (q-ones)&^q | (bs-ones)&^bs | x
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// RawString returns the bytes between the quotes (the scanner at the
// opening one), escapes still in place, and whether they need unquoting
// (escapes or non-ASCII).
func (s *Scanner) RawString() ([]byte, bool, error) {
	start := s.I
	b := s.B
	i := s.I + 1
	special := false
	for {
		i = PlainRun(b, i)
		if i >= len(b) {
			s.I = len(b)
			return nil, false, s.Errorf("unterminated string")
		}
		switch c := b[i]; {
		case c == '"':
			s.I = i + 1
			return b[start+1 : i], special, nil
		case c == '\\':
			special = true
			i += 2
		case c < 0x20:
			s.I = i
			return nil, false, s.Errorf("control character in string")
		default:
			special = true
			i++
		}
	}
}

// Str decodes a string value; null is "".
func (s *Scanner) Str() (string, error) {
	if s.Peek() != '"' {
		if s.Literal("null") {
			return "", nil
		}
		return "", s.Errorf("want a string")
	}
	start := s.I
	raw, special, err := s.RawString()
	if err != nil {
		return "", err
	}
	if special {
		return Unquote(raw, start+1)
	}
	return string(raw), nil
}

// Unquote decodes a string's raw bytes (as RawString returns them; off is
// their offset, for errors). Invalid UTF-8 and lone surrogates become
// U+FFFD, as encoding/json does.
func Unquote(raw []byte, off int) (string, error) {
	// Built in place (strings.Builder hands over its bytes): one
	// allocation, and the runs between escapes copied whole, as a
	// prompt's text is kilobytes with an escape every line or so.
	var out strings.Builder
	out.Grow(len(raw))
	for i := 0; i < len(raw); {
		j := PlainRun(raw, i)
		out.Write(raw[i:j])
		if i = j; i >= len(raw) {
			break
		}
		switch c := raw[i]; {
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(raw[i:])
			out.WriteRune(r) // invalid bytes become U+FFFD
			i += n
			continue
		case c != '\\': // a control byte (or quote) RawString let through
			out.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(raw) {
			return "", &SyntaxError{off + i, "bad escape"}
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			out.WriteByte(raw[i+1])
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			r, ok := hex4(raw, i+2)
			if !ok {
				return "", &SyntaxError{off + i, "bad \\u escape"}
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(raw, i+2); ok && i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						out.WriteRune(dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out.WriteRune(r)
			continue
		default:
			return "", &SyntaxError{off + i, "bad escape"}
		}
		i += 2
	}
	return out.String(), nil
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

// Literal steps over lit when it comes next.
func (s *Scanner) Literal(lit string) bool {
	if len(s.B)-s.I >= len(lit) && string(s.B[s.I:s.I+len(lit)]) == lit {
		s.I += len(lit)
		return true
	}
	return false
}

// Number returns the raw bytes of a number, checked against RFC 8259's
// grammar.
func (s *Scanner) Number() ([]byte, error) {
	start := s.I
	b := s.B
	i := s.I
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
		return nil, s.Errorf("want a number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return nil, s.Errorf("bad number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, s.Errorf("bad number")
		}
	}
	s.I = i
	return b[start:i], nil
}

// Int decodes an integer (a float with no fraction too); null is 0.
func (s *Scanner) Int() (int64, error) {
	if s.Literal("null") {
		return 0, nil
	}
	start := s.I
	raw, err := s.Number()
	if err != nil {
		return 0, err
	}
	if n, ok := smallInt(raw); ok {
		return n, nil
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

// smallInt reads an integer of at most 18 digits, which cannot overflow,
// without strconv (whose string argument escapes, so each call allocated;
// every meter carries seven numbers).
func smallInt(raw []byte) (int64, bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	digits := raw
	if neg {
		digits = raw[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Float decodes a number.
func (s *Scanner) Float() (float64, error) {
	start := s.I
	raw, err := s.Number()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, &SyntaxError{start, fmt.Sprintf("bad number %s", raw)}
	}
	return f, nil
}

// Skip steps over one value of any type, checking its syntax (escapes
// included, since a skipped value may be copied out as it is).
func (s *Scanner) Skip() error {
	switch c := s.Peek(); {
	case c == '"':
		start := s.I
		raw, special, err := s.RawString()
		if err == nil && special {
			_, err = Unquote(raw, start+1)
		}
		return err
	case c == '{':
		return s.Object(func([]byte) error { return s.Skip() })
	case c == '[':
		return s.Array(s.Skip)
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	default:
		_, err := s.Number()
		return err
	}
}

// Value steps over one value and returns its bytes.
func (s *Scanner) Value() ([]byte, error) {
	start := s.I
	if err := s.Skip(); err != nil {
		return nil, err
	}
	return s.B[start:s.I], nil
}

func (s *Scanner) lit(l string) error {
	if !s.Literal(l) {
		return s.Errorf("want %s", l)
	}
	return nil
}
