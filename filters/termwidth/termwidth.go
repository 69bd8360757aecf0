// Package termwidth says how many terminal columns text takes: help that
// must fit a screen, tables fitted to one.
package termwidth

import (
	"unicode"

	"golang.org/x/text/width"
)

// Of is how many terminal columns s takes: East Asian wide and fullwidth
// characters (most emoji among them: ⏳ ❓ 📋) two, combining marks and
// other zero-width characters none, the rest one.
func Of(s string) int {
	n := 0
	for _, r := range s {
		n += Rune(r)
	}
	return n
}

// Rune is how many columns r takes.
func Rune(r rune) int {
	switch {
	case r == 0x200d || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Cf, r):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
