package main

import (
	"errors"
	"io"
)

// maxPayload bounds what is read of a hook's stdin. A real payload is a
// few kilobytes, a PostToolUse with a tool's whole output a few hundred
// (the agents cut what a tool returns); past this it is no payload ag
// maps, and the rest is not read: reading hundreds of megabytes to throw
// them away cost seconds.
const maxPayload = 8 << 20

// errTooLarge is a payload past the bound.
var errTooLarge = errors.New("payload too large")

// readPayload reads one JSON value from r and returns as soon as it is
// whole: an agent that writes its payload and keeps stdin open must not
// hold the hook until its timeout. A payload that is not one JSON object
// or array is read to EOF, and so is all with toEOF (hooks.Batcher: ag's
// own plugins send several lines and close stdin). Past max bytes it
// stops reading and returns errTooLarge.
func readPayload(r io.Reader, max int, toEOF bool) ([]byte, error) {
	buf := make([]byte, 0, 4<<10) // most payloads fit
	sc := valueEnd{other: toEOF}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), max+1)])
		if n > 0 && sc.scan(buf[len(buf):len(buf)+n]) {
			return buf[:len(buf)+n], nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) > max {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// valueEnd follows a JSON text as it arrives and says when the object or
// array it begins with is closed: braces and brackets counted outside
// strings, escapes in strings skipped. It checks nothing else; the parser
// does.
type valueEnd struct {
	depth   int
	started bool
	other   bool // the text starts with something else: read to EOF
	str     bool
	esc     bool
}

// scan takes the next bytes and reports whether the value ended in them.
func (v *valueEnd) scan(b []byte) bool {
	if v.other {
		return false
	}
	for _, c := range b {
		switch {
		case v.esc:
			v.esc = false
		case v.str:
			switch c {
			case '\\':
				v.esc = true
			case '"':
				v.str = false
			}
		case !v.started:
			switch c {
			case ' ', '\t', '\r', '\n':
			case '{', '[':
				v.started, v.depth = true, 1
			default:
				v.other = true
				return false
			}
		default:
			switch c {
			case '"':
				v.str = true
			case '{', '[':
				v.depth++
			case '}', ']':
				if v.depth--; v.depth == 0 {
					return true
				}
			}
		}
	}
	return false
}
