// Package toolargs reads the arguments of an agent's tool call (a hook's
// tool input, a transcript's tool request) for the one line a state shows:
// the command, the path, the pattern. It is for the hook leaf packages, so
// it links nothing beyond the JSON scanner they already use.
package toolargs

import (
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
)

// Limits of what a state carries.
const (
	MaxText    = 2000 // a prompt, a command, a question
	MaxSummary = 300  // one line about any other tool call
)

// Field is the string member k of the JSON object in input ("" when absent
// or not an object; a member of another type as its compact JSON).
func Field(input []byte, k string) string {
	v := ""
	jsonscan.Members(input, func(key string, raw []byte) error {
		if key == k {
			v = jsonscan.Text(raw)
		}
		return nil
	})
	return v
}

// Summary is what a tool call is about: the first of keys that the input
// holds as a non-empty string, its first line clamped; "" when none does.
// A command (the first key, usually) is kept whole up to MaxText, since it
// is what a permission prompt asks about.
func Summary(input []byte, keys ...string) string {
	if len(input) == 0 || len(keys) == 0 {
		return ""
	}
	found := make([]string, len(keys))
	if jsonscan.Members(input, func(k string, raw []byte) error {
		for i, want := range keys {
			if k == want && found[i] == "" {
				found[i] = jsonscan.Text(raw)
			}
		}
		return nil
	}) != nil {
		return ""
	}
	for i, s := range found {
		if strings.TrimSpace(s) == "" {
			continue
		}
		if i == 0 {
			return event.Clamp(strings.TrimSpace(s), MaxText)
		}
		return event.Clamp(FirstLine(s), MaxSummary)
	}
	return ""
}

// FirstLine is s's first non-blank line, with " …" when more follows.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// Head is the first lines of a text (a plan), at most n, blank lines at
// its start dropped.
func Head(s string, n int) string {
	var lines []string
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, " \t\r\n")
		if line == "" && len(lines) == 0 {
			continue
		}
		lines = append(lines, line)
		if len(lines) == n {
			break
		}
	}
	return event.Clamp(strings.TrimRight(strings.Join(lines, "\n"), "\n"), MaxText)
}
