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

// ParseTime is time.Parse(time.RFC3339Nano, s), quicker for the form
// every agent and ag write — UTC, "2006-01-02T15:04:05.000Z", any number
// of fraction digits — which it reads digit by digit; anything else goes
// to time.Parse. Given the bytes of a line, the usual form costs no copy.
func ParseTime[T string | []byte](s T) (time.Time, error) {
	if t, ok := parseUTC(s); ok {
		return t, nil
	}
	return time.Parse(time.RFC3339Nano, string(s))
}

func parseUTC[T string | []byte](s T) (time.Time, bool) {
	n := len(s)
	if n < 20 || s[n-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(i, w int) int {
		v := 0
		for _, c := range []byte(s[i : i+w]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, min, sec := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || day > 28 && day > daysIn(month, year) ||
		hour < 0 || hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	switch {
	case n == 20:
	case s[19] == '.' && n > 21 && n <= 30:
		digits := n - 21
		if nsec = num(20, digits); nsec < 0 {
			return time.Time{}, false
		}
		for range 9 - digits {
			nsec *= 10
		}
	default:
		return time.Time{}, false
	}
	if year < 1 {
		return time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC), true
	}
	// The seconds since 1970 worked out directly: time.Date normalises
	// every field first, a third of a transcript line's time in handle.
	unix := unixDays(year, month, day)*86400 + int64(hour*3600+min*60+sec)
	return time.Unix(unix, int64(nsec)).UTC(), true
}

// unixDays is the number of days from 1970-01-01 to year-month-day
// (proleptic Gregorian, year ≥ 1), counted from March so that a leap day
// ends its year.
func unixDays(year, month, day int) int64 {
	if month <= 2 {
		year--
	}
	era := year / 400
	yoe := year - era*400
	doy := (153*((month+9)%12)+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097+doe) - 719468
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
