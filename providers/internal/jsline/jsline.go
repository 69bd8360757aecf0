// Package jsline reads what ag's JavaScript plugins and extensions
// (contrib/opencode, contrib/pi) hand to `ag-hook <agent>`: one JSON
// object a line, several lines when events came while an earlier ag-hook
// ran, each with the agent's own time ("t", Unix milliseconds) and process
// ("pid"). The hook leaf packages map each line; this is what they share.
package jsline

import (
	"bytes"
	"fmt"
	"time"

	"github.com/agwatch/ag/filters/jsonscan"
)

// Obj is one decoded JSON object.
type Obj map[string]any

// Lines calls f with each non-blank line of payload, decoded, and its
// number. A line that is not a JSON object is an error naming it; the
// lines after it are still handed to f, and the first error is returned.
func Lines(payload []byte, f func(n int, o Obj) error) error {
	var first error
	n := 0
	for len(payload) > 0 {
		line := payload
		if i := bytes.IndexByte(payload, '\n'); i >= 0 {
			line, payload = payload[:i], payload[i+1:]
		} else {
			payload = nil
		}
		n++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := jsonscan.Decode(line)
		o, ok := v.(map[string]any)
		if err == nil && !ok {
			err = fmt.Errorf("not a JSON object")
		}
		if err == nil {
			err = f(n, o)
		}
		if err != nil && first == nil {
			first = fmt.Errorf("line %d: %w", n, err)
		}
	}
	return first
}

// Obj is the object at key, or nil.
func (o Obj) Obj(key string) Obj {
	m, _ := o[key].(map[string]any)
	return m
}

// Str is the string at key; a number or bool as text; else "".
func (o Obj) Str(key string) string {
	switch v := o[key].(type) {
	case string:
		return v
	case float64:
		return fmt.Sprint(v)
	case bool:
		return fmt.Sprint(v)
	}
	return ""
}

// Num is the number at key, or 0.
func (o Obj) Num(key string) float64 {
	f, _ := o[key].(float64)
	return f
}

// Bool is whether key holds true.
func (o Obj) Bool(key string) bool {
	b, _ := o[key].(bool)
	return b
}

// Arr is the array at key, or nil.
func (o Obj) Arr(key string) []any {
	a, _ := o[key].([]any)
	return a
}

// Time is the line's own time ("t", Unix ms), else fallback: the agent's
// moment, even when the line waited for an earlier ag-hook.
func (o Obj) Time(fallback time.Time) time.Time {
	if ms := o.Num("t"); ms > 1e12 && ms < 1e14 {
		return time.UnixMilli(int64(ms))
	}
	return fallback
}

// PID is the agent's process as the plugin knows it (its own pid), else
// 0. ag-hook's walk up from itself finds the same process while it runs;
// this one holds after it exited (the session's last events).
func (o Obj) PID() int {
	if p := o.Num("pid"); p > 0 && p < 1<<31 {
		return int(p)
	}
	return 0
}
