// Package safetext makes text ag did not write fit to leave ag: printed to
// a terminal, put in a tmux format, shown in a desktop notification, passed
// in a shell's environment. Such text comes from an agent, its model, or a
// broker's publisher, and may be written to do harm: an OSC 52 sequence
// that fills the clipboard, a title change, a bidi override that shows a
// command backwards, a #{…} that tmux expands, <a href> in a notification.
//
// Every function here removes C0 and C1 control characters (ESC, BEL, CSI,
// NUL, DEL, …), the bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E,
// U+200F, U+061C) and the line and paragraph separators; replaces invalid
// UTF-8 with U+FFFD; and bounds the length. What is left cannot start,
// end or forge an escape sequence, nor reorder what a terminal shows.
//
// It is pure and allocation-free on text that needs nothing (the common
// case): a hook and a prompt segment pay a scan, no more.
package safetext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// Bad reports a character that may never leave ag as itself: a C0 or C1
// control, DEL, a bidi control, or a line or paragraph separator.
func Bad(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r < 0xa0:
		return true // C1: 0x9b is CSI and 0x9d OSC in an 8-bit terminal
	}
	return Bidi(r) || r == 0x2028 || r == 0x2029
}

// Bidi reports a bidirectional control: the embeddings, overrides and
// isolates (U+202A–U+202E, U+2066–U+2069) and the marks (U+200E, U+200F,
// U+061C), which make a terminal show text in another order than it is
// ("Trojan Source").
func Bidi(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// Invisible reports a character that shows nothing where it stands: the
// format characters a composer or a terminal may drop (zero-width space
// and joiners, word joiner, byte order mark, soft hyphen, the invisible
// operators, bidi controls), the Hangul and Mongolian fillers, and the
// variation selectors. A reply that starts with one of them starts, for
// the reader, with what follows.
func Invisible(r rune) bool {
	switch {
	case Bidi(r):
		return true
	case r == 0x00ad, r == 0x034f, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5,
		r == 0x3164, r == 0xfeff, r == 0xffa0:
		return true
	case 0x180b <= r && r <= 0x180f, 0x200b <= r && r <= 0x200d, 0x2060 <= r && r <= 0x2064,
		0x206a <= r && r <= 0x206f, 0xfe00 <= r && r <= 0xfe0f, 0xe0000 <= r && r <= 0xe0fff:
		return true
	}
	return false
}

// Clean reports whether s holds nothing Line would change except its
// length: valid UTF-8, no Bad character.
func Clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return false
		}
		if c < utf8.RuneSelf {
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Bad(r) {
			return false
		}
		i += n - 1
	}
	return true
}

// Line is s as one line of plain text: tabs, newlines and the separators
// become spaces, every other Bad character goes, invalid UTF-8 becomes
// U+FFFD, and past max characters (runes; 0: no limit) it is cut, "…"
// marking the cut.
func Line(s string, max int) string {
	if Clean(s) {
		return Cut(s, max)
	}
	return Cut(clean(s, false), max)
}

// Text is Line keeping newlines: a notification's body, a multi-line
// message. Carriage returns and tabs become spaces.
func Text(s string, max int) string {
	return Cut(clean(s, true), max)
}

// clean does Line's work (and Text's with lines) on text that needs it.
func clean(s string, lines bool) string {
	if Clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' && lines:
			b.WriteByte('\n')
		case r == '\t', r == '\n', r == '\r', r == '\v', r == '\f', r == 0x85, r == 0x2028, r == 0x2029:
			b.WriteByte(' ')
		case Bad(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Cut shortens s to at most max characters (runes), the last of them "…";
// max 0 or less: no limit.
func Cut(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			if utf8.RuneCountInString(s[i:]) == 1 {
				return s // exactly max: nothing to cut
			}
			return s[:i] + Ellipsis
		}
		n++
	}
	return s
}

// Tmux is Line for text that goes where tmux expands formats (an option a
// status or border format shows, display-message): "#" is doubled, so tmux
// shows "#" where the text has one and never reads #{…}, #(…) or #[…] out
// of it.
func Tmux(s string, max int) string {
	s = Line(s, max)
	if strings.IndexByte(s, '#') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "#", "##")
}

// Markup is Text for a notification server that reads markup (the
// freedesktop body-markup capability, a Pango subset): &, < and > are
// written as entities, so the text shows as itself and no tag in it
// becomes a link, an image or a style. Quotes stay: they mean something
// only inside a tag, and some servers show &quot; as it is.
func Markup(s string, max int) string {
	s = Text(s, max)
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Env is Line for the value of an environment variable a user's command
// reads: no NUL (exec refuses a variable holding one), nothing a script
// that echoes it could send to a terminal.
func Env(s string, max int) string { return Line(s, max) }

// Visible is s with every Bad character (and invalid byte) written as a Go
// escape, \x1b, \u202e, so a message that quotes hostile text shows what
// it held without doing what it says. Other characters stay as they are.
func Visible(s string) string {
	if Clean(s) {
		return s
	}
	var b strings.Builder
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&15])
		case r < 0x100 && Bad(r):
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
		case Bad(r):
			b.WriteString(`\u`)
			for sh := 12; sh >= 0; sh -= 4 {
				b.WriteByte(hex[r>>sh&15])
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// TrimInvisible removes what shows nothing from the start of s: white
// space and Invisible characters, so "\u200b!rm" is seen as the "!rm" a reader
// (or a composer that trims) takes it for.
func TrimInvisible(s string) string {
	return strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || Invisible(r) })
}
