package tmpl

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The html, js and urlquery builtins, written out here: text/template's
// urlquery is net/url's, whose package brings net/netip's initialisation
// into every binary that links it.

const hexDigits = "0123456789ABCDEF"

func htmlEscaper(args ...any) string {
	s := argsString(args)
	if !strings.ContainsAny(s, "'\"&<>\000") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ { // bytes: invalid UTF-8 passes through
		switch c := s[i]; c {
		case 0:
			b.WriteString("\uFFFD")
		case '"':
			b.WriteString("&#34;")
		case '\'':
			b.WriteString("&#39;")
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

func jsEscaper(args ...any) string {
	s := argsString(args)
	if strings.IndexFunc(s, jsSpecial) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '\\', '\'', '"':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '<', '>', '&', '=':
				fmt.Fprintf(&b, `\u%04X`, c)
			default:
				if c < ' ' {
					b.WriteString(`\u00`)
					b.WriteByte(hexDigits[c>>4])
					b.WriteByte(hexDigits[c&15])
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsPrint(r) {
			b.WriteString(s[i : i+n])
		} else {
			fmt.Fprintf(&b, `\u%04X`, r)
		}
		i += n
	}
	return b.String()
}

func jsSpecial(r rune) bool {
	switch r {
	case '\\', '\'', '"', '<', '>', '&', '=':
		return true
	}
	return r < ' ' || utf8.RuneSelf <= r
}

// urlQueryEscaper is url.QueryEscape: letters, digits and -_.~ stay,
// space is +, every other byte %XX.
func urlQueryEscaper(args ...any) string {
	s := argsString(args)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

// argsString is fmt.Sprint(args...) with each argument printed as the
// template would print it (pointers followed).
func argsString(args []any) string {
	if len(args) == 1 {
		if s, ok := args[0].(string); ok {
			return s
		}
	}
	for i, a := range args {
		if x, ok := printable(reflect.ValueOf(a)); ok {
			args[i] = x
		}
	}
	return fmt.Sprint(args...)
}
