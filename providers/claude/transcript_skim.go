package claude

import (
	"bytes"
	"fmt"

	"github.com/agwatch/ag/filters/event"
)

// skim reads the few members the parser needs out of one JSON line and
// steps over the rest without decoding it: strings are skipped with
// bytes.IndexByte, containers by counting brackets. It checks structure
// (balanced, terminated) but not every detail a full decoder would (control
// characters inside skipped strings), which only matters for lines that are
// not JSON anyway.
type skim struct {
	b []byte
	i int
}

type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("invalid JSON at byte %d: %s", e.off, e.msg) }

func (s *skim) fail(msg string) error { return &syntaxError{s.i, msg} }

func (s *skim) ws() {
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
func (s *skim) str() ([]byte, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, s.fail("expected string")
	}
	start := s.i + 1
	j := start
	for {
		k := bytes.IndexByte(s.b[j:], '"')
		if k < 0 {
			s.i = len(s.b)
			return nil, s.fail("unterminated string")
		}
		j += k
		// An escaped quote has an odd run of backslashes before it.
		n := 0
		for p := j - 1; p >= start && s.b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			s.i = j + 1
			return s.b[start:j], nil
		}
		j++
	}
}

// strVal reads a value that should be a string; another type yields "".
func (s *skim) strVal() (jstr, bool, error) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '"' {
		raw, err := s.str()
		return jstr{raw: raw}, true, err
	}
	return jstr{}, false, s.skip()
}

func (s *skim) jtext() (jstr, error) {
	j, _, err := s.strVal()
	return j, err
}

// boolVal is true only for the literal true.
func (s *skim) boolVal() (bool, error) {
	s.ws()
	if bytes.HasPrefix(s.b[s.i:], []byte("true")) {
		s.i += 4
		return true, s.end()
	}
	return false, s.skip()
}

// end checks a literal or number is followed by a delimiter.
func (s *skim) end() error {
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
		default:
			return s.fail("bad literal")
		}
	}
	return nil
}

// numVal reads a token count; a non-number yields 0.
func (s *skim) numVal() (int64, error) {
	s.ws()
	if s.i < len(s.b) && (s.b[s.i] == '-' || s.b[s.i] >= '0' && s.b[s.i] <= '9') {
		start := s.i
		if err := s.number(); err != nil {
			return 0, err
		}
		return toInt(string(s.b[start:s.i])), nil
	}
	return 0, s.skip()
}

func (s *skim) number() error {
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
		return s.fail("bad number")
	}
	return s.end()
}

// skip steps over one value of any type.
func (s *skim) skip() error {
	s.ws()
	if s.i >= len(s.b) {
		return s.fail("unexpected end")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, err := s.str()
		return err
	case c == '{' || c == '[':
		return s.skipContainer()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return s.fail("unexpected character")
}

func (s *skim) lit(l string) error {
	if !bytes.HasPrefix(s.b[s.i:], []byte(l)) {
		return s.fail("bad literal")
	}
	s.i += len(l)
	return s.end()
}

// skipContainer steps over an object or array by counting brackets.
func (s *skim) skipContainer() error {
	depth := 0
	b := s.b
	for i := s.i; i < len(b); i++ {
		switch b[i] {
		case '"':
			s.i = i
			if _, err := s.str(); err != nil {
				return err
			}
			i = s.i - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i = i + 1
				return nil
			}
		}
	}
	s.i = len(b)
	return s.fail("unterminated object or array")
}

// object calls member for each key of the object at s.i; member must
// consume the value. A non-object value is skipped and reported false.
func (s *skim) object(member func(key []byte) error) (bool, error) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false, s.skip()
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true, nil
	}
	for {
		s.ws()
		raw, err := s.str()
		if err != nil {
			return true, err
		}
		key := raw
		if bytes.IndexByte(raw, '\\') >= 0 {
			key = []byte(decodeStr(raw))
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return true, s.fail("expected colon")
		}
		s.i++
		if err := member(key); err != nil {
			return true, err
		}
		s.ws()
		if s.i >= len(s.b) {
			return true, s.fail("unterminated object")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true, nil
		default:
			return true, s.fail("expected comma or end of object")
		}
	}
}

// array calls elem for each element of the array at s.i.
func (s *skim) array(elem func() error) (bool, error) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return false, s.skip()
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true, nil
	}
	for {
		if err := elem(); err != nil {
			return true, err
		}
		s.ws()
		if s.i >= len(s.b) {
			return true, s.fail("unterminated array")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return true, nil
		default:
			return true, s.fail("expected comma or end of array")
		}
	}
}

// skimLine fills r from line. ok is false when the line is not an object
// (nothing to read); err when it is broken.
func skimLine(line []byte, r *record) (ok bool, err error) {
	blocks := r.Msg.Blocks[:0] // kept: most lines have some
	*r = record{}
	r.Msg.Blocks = blocks
	s := &skim{b: line}
	s.ws()
	if s.i >= len(line) || line[s.i] != '{' {
		return false, nil
	}
	_, err = s.object(func(key []byte) (err error) {
		switch string(key) {
		case "type":
			r.Type, err = s.jtext()
		case "subtype":
			r.Subtype, err = s.jtext()
		case "isSidechain":
			r.Sidechain, err = s.boolVal()
		case "isMeta":
			r.Meta, err = s.boolVal()
		case "isCompactSummary":
			r.CompactSummary, err = s.boolVal()
		case "agentId":
			r.AgentID, err = s.jtext()
		case "promptId":
			r.PromptID, err = s.jtext()
		case "sessionId":
			r.SessionID, err = s.jtext()
		case "timestamp":
			r.Timestamp, err = s.jtext()
		case "cwd":
			r.Cwd, err = s.jtext()
		case "gitBranch":
			r.Branch, err = s.jtext()
		case "requestId":
			r.RequestID, err = s.jtext()
		case "uuid":
			r.UUID, err = s.jtext()
		case "interruptedMessageId":
			r.InterruptedMessageID, err = s.jtext()
		case "isApiErrorMessage":
			r.APIError, err = s.boolVal()
		case "error":
			r.ErrorKind, err = s.jtext()
		case "toolUseResult":
			var status, agent jstr
			_, err = s.object(func(key []byte) (err error) {
				switch string(key) {
				case "status":
					status, _, err = s.strVal()
				case "agentId":
					agent, _, err = s.strVal()
				default:
					err = s.skip()
				}
				return err
			})
			r.Launched = jstr{}
			if status.is("async_launched") {
				r.Launched = agent
			}
		case "message":
			r.Msg = message{Blocks: r.Msg.Blocks[:0]}
			err = s.message(&r.Msg)
		default:
			err = s.skip()
		}
		return err
	})
	if err == nil {
		s.ws()
		if s.i < len(line) {
			err = s.fail("data after the object")
		}
	}
	return err == nil, err
}

func (s *skim) message(m *message) error {
	_, err := s.object(func(key []byte) (err error) {
		switch string(key) {
		case "id":
			m.ID, err = s.jtext()
		case "model":
			m.Model, err = s.jtext()
		case "stop_reason":
			m.StopReason, err = s.jtext()
		case "usage":
			m.Usage = event.Tokens{}
			m.HasUsage, err = s.object(func(key []byte) (err error) {
				switch string(key) {
				case "input_tokens":
					m.Usage.In, err = s.numVal()
				case "output_tokens":
					m.Usage.Out, err = s.numVal()
				case "cache_read_input_tokens":
					m.Usage.CacheRead, err = s.numVal()
				case "cache_creation_input_tokens":
					m.Usage.CacheWrite, err = s.numVal()
				default:
					err = s.skip()
				}
				return err
			})
		case "content":
			m.IsString, m.Text, m.Blocks = false, jstr{}, m.Blocks[:0]
			s.ws()
			if s.i < len(s.b) && s.b[s.i] == '"' {
				m.Text, m.IsString, err = s.strVal()
				return err
			}
			_, err = s.array(func() error {
				var b block
				isObj, err := s.object(func(key []byte) (err error) {
					return s.block(&b, key)
				})
				if isObj {
					m.Blocks = append(m.Blocks, b)
				}
				return err
			})
		default:
			err = s.skip()
		}
		return err
	})
	return err
}

func (s *skim) block(b *block, key []byte) (err error) {
	switch string(key) {
	case "type":
		b.Type, err = s.jtext()
	case "id":
		b.ID, err = s.jtext()
	case "name":
		b.Name, err = s.jtext()
	case "tool_use_id":
		b.ToolUseID, err = s.jtext()
	case "is_error":
		b.IsError, err = s.boolVal()
	case "content":
		var j jstr
		var isStr bool
		j, isStr, err = s.strVal()
		b.Rejected = isStr && rejected(j)
	case "text":
		b.Text, _, err = s.strVal()
	case "input":
		var vals [len(summaryKeys)]jstr
		_, err = s.object(func(key []byte) error {
			r := summaryRank(string(key))
			if r < 0 {
				return s.skip()
			}
			v, _, err := s.strVal()
			vals[r] = v
			return err
		})
		b.Summary = pickSummary(vals[:])
	default:
		err = s.skip()
	}
	return err
}
