package jsonscan

import "strings"

// Members calls f with each member of the JSON object in raw (the key
// decoded, the value's raw bytes), in order, and checks that nothing but
// white space follows the object.
func Members(raw []byte, f func(key string, val []byte) error) error {
	s := Scanner{B: raw}
	s.Space()
	if s.Peek() != '{' {
		return s.Errorf("not a JSON object")
	}
	err := s.Object(func(k []byte) error {
		key, err := keyString(k)
		if err != nil {
			return err
		}
		v, err := s.Value()
		if err != nil {
			return err
		}
		return f(key, v)
	})
	if err != nil {
		return err
	}
	s.Space()
	if s.I != len(s.B) {
		return s.Errorf("trailing data after the object")
	}
	return nil
}

// Elements calls f with the raw bytes of each element of the JSON array
// in raw; null is an empty array.
func Elements(raw []byte, f func(val []byte) error) error {
	s := Scanner{B: raw}
	s.Space()
	return s.Array(func() error {
		v, err := s.Value()
		if err != nil {
			return err
		}
		return f(v)
	})
}

func keyString(k []byte) (string, error) {
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return Unquote(k, 0)
		}
	}
	return string(k), nil
}

// Text is a value as text, leniently: a string as itself, null (or
// nothing) as "", anything else as its compact JSON. A member of a
// surprising type then never costs the whole record.
func Text(raw []byte) string {
	s := Scanner{B: raw}
	s.Space()
	if s.Peek() == '"' {
		if v, err := s.Str(); err == nil {
			return v
		}
	}
	if s.Peek() == 0 || s.Literal("null") {
		return ""
	}
	return strings.ToValidUTF8(string(Compact(nil, raw)), "\uFFFD")
}

// Compact appends raw with the white space outside strings removed. It
// does not check the syntax: give it a value a Scanner has stepped over.
func Compact(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(raw) {
				return append(dst, raw[i:]...)
			}
			dst = append(dst, raw[i:j+1]...)
			i = j
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// IsTrue reports whether raw is the literal true.
func IsTrue(raw []byte) bool {
	s := Scanner{B: raw}
	s.Space()
	return s.Literal("true")
}
