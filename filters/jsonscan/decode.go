package jsonscan

import "strconv"

// Decode reads one JSON value whole into what encoding/json's Unmarshal
// into an `any` gives: map[string]any, []any, string, float64, bool and
// nil, the last of a repeated key winning. A number past float64 (1e400)
// is nil, where encoding/json reports a type error and decodes the rest.
// It is for small documents read leniently where encoding/json would be
// the only reason to link it.
func Decode(raw []byte) (any, error) {
	s := Scanner{B: raw}
	s.Space()
	v, err := s.decode()
	if err != nil {
		return nil, err
	}
	s.Space()
	if s.I != len(s.B) {
		return nil, s.Errorf("trailing data after the value")
	}
	return v, nil
}

// decode reads the value at the scanner (Object and Array bound the
// nesting at MaxDepth).
func (s *Scanner) decode() (any, error) {
	switch c := s.Peek(); {
	case c == '{':
		m := map[string]any{}
		err := s.Object(func(k []byte) error {
			key, err := keyString(k)
			if err != nil {
				return err
			}
			v, err := s.decode()
			m[key] = v
			return err
		})
		return m, err
	case c == '[':
		a := []any{}
		err := s.Array(func() error {
			v, err := s.decode()
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		return s.Str()
	case c == 't':
		return true, s.lit("true")
	case c == 'f':
		return false, s.lit("false")
	case c == 'n':
		return nil, s.lit("null")
	}
	raw, err := s.Number()
	if err != nil {
		return nil, err
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return nil, nil // out of float64's range: absent, the rest still read
	}
	return f, nil
}
