package claude

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/agwatch/ag/filters/event"
)

// skim reads the few members the parser needs out of one JSON line and
// steps over the rest without decoding it: strings are skipped 8 bytes at
// a time or with bytes.IndexByte, containers by counting brackets. It
// checks structure (balanced, terminated) but not every detail a full
// decoder would (control characters inside skipped strings), which only
// matters for lines that are not JSON anyway.
//
// The first error sticks (err) and ends every loop: the readers return
// values, not errors, and the members are walked by plain loops, not
// callbacks, which the compiler can inline (~40 strings a line).
type skim struct {
	b   []byte
	i   int
	esc bool    // the last string read may hold an escape
	key []byte  // the key of the member member moved to
	kid keyCode // and its code

	memo *lineMemo // nil: none
	err  error     // the first syntax error
}

type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("invalid JSON at byte %d: %s", e.off, e.msg) }

func (s *skim) fail(msg string) {
	if s.err == nil {
		s.err = &syntaxError{s.i, msg}
	}
}

func (s *skim) ws() {
	// Transcripts hold no white space between tokens: one compare, as
	// every token starts above ' '.
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str reads a string at s.i and returns its raw body.
func (s *skim) str() []byte {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		s.fail("expected string")
		return nil
	}
	b := s.b
	start := s.i + 1
	s.esc = false
	// Most strings in a transcript are keys, ids and times, under 64
	// bytes: looked for eight bytes at a time (the lowest quote or
	// backslash of a word), stepping over escapes; written out here
	// rather than called, as this loop runs ~40 times a line.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	j := start
	for j+8 <= len(b) && j-start < 64 {
		x := binary.LittleEndian.Uint64(b[j:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		m := ((q-ones)&^q | (bs-ones)&^bs) & highs
		if m == 0 {
			j += 8
			continue
		}
		j += bits.TrailingZeros64(m) >> 3
		if b[j] == '"' {
			s.i = j + 1
			return b[start:j]
		}
		j += 2 // a backslash and the byte it escapes
		s.esc = true
	}
	if j > len(s.b) {
		j = len(s.b) // the escape was the last byte: unterminated
	}
	s.esc = true // not looked for beyond this point
	for {
		k := bytes.IndexByte(s.b[j:], '"')
		if k < 0 {
			s.i = len(s.b)
			s.fail("unterminated string")
			return nil
		}
		j += k
		// An escaped quote has an odd run of backslashes before it.
		n := 0
		for p := j - 1; p >= start && s.b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			s.i = j + 1
			return s.b[start:j]
		}
		j++
	}
}

// strVal reads a value that should be a string; another type is skipped
// and yields "", false.
func (s *skim) strVal() (jstr, bool) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '"' {
		raw := s.str()
		return jstr{raw: raw, plain: !s.esc}, true
	}
	s.skip()
	return jstr{}, false
}

func (s *skim) jtext() jstr {
	j, _ := s.strVal()
	return j
}

// boolVal is true only for the literal true.
func (s *skim) boolVal() bool {
	s.ws()
	if bytes.HasPrefix(s.b[s.i:], []byte("true")) {
		s.i += 4
		s.end()
		return true
	}
	s.skip()
	return false
}

// end checks a literal or number is followed by a delimiter.
func (s *skim) end() {
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
		default:
			s.fail("bad literal")
		}
	}
}

// numVal reads a token count; a non-number yields 0.
func (s *skim) numVal() int64 {
	s.ws()
	if s.i < len(s.b) && (s.b[s.i] == '-' || s.b[s.i] >= '0' && s.b[s.i] <= '9') {
		start := s.i
		if !s.number() {
			return 0
		}
		return toInt(s.b[start:s.i])
	}
	s.skip()
	return 0
}

func (s *skim) number() bool {
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	if s.i == start {
		s.fail("bad number")
		return false
	}
	s.end()
	return s.err == nil
}

// skip steps over one value of any type.
func (s *skim) skip() {
	s.ws()
	if s.i >= len(s.b) {
		s.fail("unexpected end")
		return
	}
	switch c := s.b[s.i]; {
	case c == '"':
		s.str()
	case c == '{' || c == '[':
		s.skipContainer()
	case c == 't':
		s.lit("true")
	case c == 'f':
		s.lit("false")
	case c == 'n':
		s.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		s.number()
	default:
		s.fail("unexpected character")
	}
}

func (s *skim) lit(l string) {
	if !bytes.HasPrefix(s.b[s.i:], []byte(l)) {
		s.fail("bad literal")
		return
	}
	s.i += len(l)
	s.end()
}

// skipContainer steps over an object or array by counting brackets.
func (s *skim) skipContainer() {
	depth := 0
	b := s.b
	for i := s.i; i < len(b); i++ {
		switch b[i] {
		case '"':
			s.i = i
			if s.str(); s.err != nil {
				return
			}
			i = s.i - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i = i + 1
				return
			}
		}
	}
	s.i = len(b)
	s.fail("unterminated object or array")
}

// open starts the object (c '{') or array ('[') at s.i; another value is
// skipped and reported false. Its members or elements are then walked by
// member or elem, with n counting them from 0:
//
//	for n := 0; s.member(&n); n++ { switch s.kid { ... } }
func (s *skim) open(c byte) bool {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != c {
		s.skip()
		return false
	}
	s.i++
	return s.err == nil
}

// member moves to the object's next member, its key in s.key and s.i at
// its value, which the caller must read; false at the object's end.
func (s *skim) member(n *int) bool {
	if !s.next(*n, '}', "unterminated object", "expected comma or end of object") {
		return false
	}
	if id, end, ok := knownKey(s.b, s.i); ok && end < len(s.b) && s.b[end] == ':' {
		s.key, s.kid, s.i = s.b[s.i+1:end-1], id, end+1
		return true
	}
	raw := s.str()
	if s.err != nil {
		return false
	}
	s.key = raw
	if s.esc {
		s.key = []byte(decodeStr(raw))
	}
	s.kid = keyOf(s.key)
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != ':' {
		s.fail("expected colon")
		return false
	}
	s.i++
	return true
}

// elem moves to the array's next element (s.i at it); false at its end.
func (s *skim) elem(n *int) bool {
	return s.next(*n, ']', "unterminated array", "expected comma or end of array")
}

// next steps over the comma before the n-th item, or the closing bracket.
func (s *skim) next(n int, close byte, unterminated, expected string) bool {
	if s.err != nil {
		return false
	}
	s.ws()
	if n == 0 {
		if s.i < len(s.b) && s.b[s.i] == close {
			s.i++
			return false
		}
		return true
	}
	if s.i >= len(s.b) {
		s.fail(unterminated)
		return false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		s.ws()
		return true
	case close:
		s.i++
		return false
	}
	s.fail(expected)
	return false
}

// lineMemo is what a transcript's lines repeat that is worth remembering:
// every line of a response (a line a content block) carries the same usage
// object, ~25 tokens the skim would read again.
type lineMemo struct {
	usage []byte       // the last usage object read, raw
	tok   event.Tokens // and its reading
}

// maxUsageMemo bounds the usage object kept (Claude Code's are ~400 bytes).
const maxUsageMemo = 1 << 10
