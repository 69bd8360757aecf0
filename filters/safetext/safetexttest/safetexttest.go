// Package safetexttest holds the hostile strings every surface's tests
// feed through it, and the check of what came out: no ESC, BEL, C1 or bidi
// control, valid UTF-8.
package safetexttest

import (
	"strings"
	"unicode/utf8"

	"github.com/agwatch/ag/filters/safetext"
)

// Hostile is text an agent, its model or a broker's publisher could write
// to do harm where ag shows it.
var Hostile = []string{
	"Bash\x1b]52;c;cHduZWQ=\a\x1b]0;TITLE\a#[fg=red]X",
	"\x1b[2J\x1b[H\x1b[31mred\x1bP+q\x1b\\",
	"\x9b31m\x9d0;t\x9c",
	"\u009b31m\u009d0;t\u009c\u0085",
	"ok\u202egnp.exe",
	"a\u2066b\u2069c\u200fd\u061c",
	"#{pane_current_path} #(touch /tmp/ag-pwned) ##[bg=red]",
	"<a href='https://x'>&amp;</a><b>",
	"nul\x00here",
	"line\nbreak\r\ttab\u2028sep\u2029para\u0085nel",
	"\xff\xfe invalid",
	"end;",
	strings.Repeat("long ", 1000),
}

// Find returns the first character in s that must never leave ag (an
// escape, a control, a bidi control, an invalid byte; a newline only when
// lines is false) and where it is, or -1.
func Find(s string, lines bool) (int, string) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return i, safetext.Visible(s[i : i+1])
		case r == '\n' && lines:
		case safetext.Bad(r):
			return i, safetext.Visible(string(r))
		}
		i += n
	}
	return -1, ""
}
