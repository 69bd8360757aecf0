package notify

import (
	"strings"
	"unicode/utf8"

	"github.com/agwatch/ag/filters/safetext"
)

// Clamps, from ccmux's notify-context (a banner shows about this much).
const (
	WaitLines, WaitChars = 4, 300 // permission command, question, plan
	DoneLines, DoneChars = 2, 200 // the last prompt of a finished turn
	TitleChars           = 100
	ButtonChars          = 40   // a button's label
	ReplyChars           = 2000 // longest reply text passed on
)

// Clean makes agent text safe to show anywhere a notification goes,
// terminals included (safetext.Text): every control character except
// newline is dropped (ESC, BEL and the C1 range could end or forge an OSC
// sequence), and every bidi control; tabs and carriage returns become
// spaces, trailing blanks go, blank lines at either end go, and invalid
// UTF-8 becomes U+FFFD.
func Clean(s string) string {
	lines := strings.Split(safetext.Text(s, 0), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// Clamp cleans s and keeps at most maxLines lines and maxChars characters,
// ending with "…" when anything was cut.
func Clamp(s string, maxLines, maxChars int) string {
	s = Clean(s)
	cut := false
	if maxLines > 0 {
		if lines := strings.SplitN(s, "\n", maxLines+1); len(lines) > maxLines {
			s, cut = strings.Join(lines[:maxLines], "\n"), true
		}
	}
	if maxChars > 0 && utf8.RuneCountInString(s) > maxChars {
		n := 0
		for i := range s {
			if n == maxChars-1 {
				s = s[:i]
				break
			}
			n++
		}
		cut = true
	}
	if cut {
		s = strings.TrimRight(s, " \n") + "…"
	}
	return s
}

// Line is Clamp to one line: newlines become spaces.
func Line(s string, maxChars int) string {
	return Clamp(strings.Join(strings.Fields(Clean(s)), " "), 1, maxChars)
}

// SanitizeReply makes a notification reply fit to pass on: one line,
// control characters stripped, at most ReplyChars characters. Whether the
// agent's composer would misread it ("!" or "/" first) is ag-keys' call,
// per agent (KeyMap.UnsafeReply).
func SanitizeReply(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(Clean(s), "\n", " "))
	if utf8.RuneCountInString(s) > ReplyChars {
		n := 0
		for i := range s {
			if n == ReplyChars {
				s = s[:i]
				break
			}
			n++
		}
	}
	return s
}
