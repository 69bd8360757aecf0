package table

import (
	"strings"

	"github.com/agwatch/ag/filters/termwidth"
)

// Width is how many terminal columns s takes (termwidth.Of).
func Width(s string) int { return termwidth.Of(s) }

func runeWidth(r rune) int { return termwidth.Rune(r) }

// Cut shortens s to at most w columns, marking the cut with "…": whole
// characters only (a wide one that would straddle the edge goes), and no
// blank left before the mark.
func Cut(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		rw := runeWidth(r)
		if n+rw > w-1 {
			break
		}
		b.WriteRune(r)
		n += rw
	}
	return strings.TrimRight(b.String(), " ") + "…"
}

// ANSI SGR colours.
const (
	bold   = "1"
	dim    = "2"
	red    = "31"
	green  = "32"
	yellow = "1;33"
	cyan   = "36"
)

func statusColor(status string) string {
	switch status {
	case "waiting":
		return yellow
	case "failed":
		return red
	case "working":
		return cyan
	case "done":
		return green
	}
	return dim
}

// lineWriter writes one line's pieces, cut at the width left and painted.
type lineWriter struct {
	b     strings.Builder
	left  int // columns left; < 0: no limit
	color bool
}

func (l *lineWriter) add(text, color string) {
	if l.left >= 0 && Width(text) > l.left {
		if strings.TrimSpace(text) == "" {
			text = text[:l.left] // blanks: no mark
		} else {
			text = Cut(text, l.left)
		}
	}
	if text == "" {
		return
	}
	if l.left >= 0 {
		l.left -= Width(text)
	}
	if l.color && color != "" && strings.TrimSpace(text) != "" {
		text = "\x1b[" + color + "m" + text + "\x1b[0m"
	}
	l.b.WriteString(text)
}
