// Command picture makes the page doc/picture.sh photographs: aha's HTML
// of a captured tmux screen (stdin) inside a terminal window, with every
// character that is not ASCII held to the cells the terminal gave it (one,
// or two for a wide one), so the browser's fallback fonts for emoji and
// box drawing cannot shift the grid.
//
//	picture COLS ROWS < screen.html > page.html
package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/agwatch/ag/filters/table"
)

const page = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>
:root { --fg: #d0d0d0; --bg: #1c1c1c; }
html, body { margin: 0; background: #eef0f3; }
.win { margin: 24px; border-radius: 10px; overflow: hidden; background: var(--bg);
  box-shadow: 0 10px 30px rgba(0,0,0,.25), 0 0 0 1px rgba(0,0,0,.2); width: max-content; }
.bar { height: 30px; background: #2e2e2e; display: flex; align-items: center; padding: 0 12px; gap: 8px; }
.dot { width: 12px; height: 12px; border-radius: 50%%; }
.bar span.t { color: #a0a0a0; font: 13px sans-serif; margin-left: 12px; }
pre { margin: 0; padding: 10px 14px 12px; color: var(--fg); font: 15px/1.3 "DejaVu Sans Mono", monospace;
  width: %dch; height: calc(%d * 1.3em); }
.c1, .c2 { display: inline-block; text-align: center; overflow: visible; vertical-align: top; }
.c1 { width: 1ch; } .c2 { width: 2ch; }
.c2 i { font-style: normal; font-family: "Noto Color Emoji", "DejaVu Sans Mono", monospace; font-size: 0.9em; }
/* Box drawing stretched to the line's height, so lines join as in a terminal. */
.bx { display: inline-block; width: 1ch; vertical-align: top; transform: scaleY(1.4); }
.bold { font-weight: bold; } .underline { text-decoration: underline; } .italic { font-style: italic; }
.inverted { color: var(--bg); } .bg-inverted { background: var(--fg); }
.dimgray { color: #808080; }
.red { color: #ff6b6b; } .green { color: #87d787; } .yellow { color: #ffd75f; } .blue { color: #5fafff; }
.purple { color: #d787d7; } .cyan { color: #5fd7d7; } .white { color: #e4e4e4; }
.bg-black { background: #000; } .bg-red { background: #d75f5f; } .bg-green { background: #5f875f; }
.bg-yellow { background: #af8700; } .bg-blue { background: #005f87; } .bg-purple { background: #875f87; }
.bg-cyan { background: #008787; } .bg-white { background: #bcbcbc; }
</style></head><body><div class="win">
<div class="bar"><div class="dot" style="background:#ff5f57"></div><div class="dot" style="background:#febc2e"></div><div class="dot" style="background:#28c840"></div><span class="t">%s</span></div>
<pre>%s</pre></div></body></html>
`

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: picture COLS ROWS TITLE < screen.html > page.html")
		os.Exit(2)
	}
	cols, err1 := strconv.Atoi(os.Args[1])
	rows, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "picture: COLS and ROWS are numbers")
		os.Exit(2)
	}
	in, err := io.ReadAll(bufio.NewReader(os.Stdin))
	if err != nil {
		fmt.Fprintln(os.Stderr, "picture:", err)
		os.Exit(1)
	}
	fmt.Printf(page, cols, rows, html.EscapeString(os.Args[3]), cells(string(in)))
}

// cells wraps each non-ASCII character of the text (not of the tags) in a
// span as wide as its cells.
func cells(s string) string {
	var b strings.Builder
	tag := false
	for _, r := range s {
		switch {
		case r == '<':
			tag = true
		case r == '>':
			tag = false
		case tag || r < 0x80:
		case r >= 0x2500 && r <= 0x257f:
			fmt.Fprintf(&b, `<span class="bx">%c</span>`, r)
			continue
		case table.Width(string(r)) == 2:
			fmt.Fprintf(&b, `<span class="c2"><i>%c</i></span>`, r)
			continue
		case table.Width(string(r)) == 1:
			fmt.Fprintf(&b, `<span class="c1">%c</span>`, r)
			continue
		}
		b.WriteRune(r)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
