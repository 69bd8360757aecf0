package event

import (
	"fmt"
	"time"
)

// Layout is how every ag time is written: RFC 3339, UTC, milliseconds.
const Layout = "2006-01-02T15:04:05.000Z07:00"

// Time is a time.Time that encodes as Layout and decodes any RFC 3339 time.
type Time struct{ time.Time }

// At wraps t.
func At(t time.Time) Time { return Time{t} }

// Ptr returns a pointer to a Time for t, for the optional fields.
func Ptr(t time.Time) *Time { return &Time{t} }

// MarshalText writes t as Layout in UTC.
func (t Time) MarshalText() ([]byte, error) {
	if t.IsZero() {
		return []byte{}, nil
	}
	return t.UTC().AppendFormat(make([]byte, 0, 24), Layout), nil
}

// UnmarshalText reads RFC 3339 with or without fractional seconds.
func (t *Time) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		t.Time = time.Time{}
		return nil
	}
	p, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return fmt.Errorf("bad time %q: want RFC 3339", b)
	}
	t.Time = p
	return nil
}

// String is the wire form.
func (t Time) String() string {
	b, _ := t.MarshalText()
	return string(b)
}
