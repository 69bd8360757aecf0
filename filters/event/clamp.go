package event

import "unicode/utf8"

// Clamp cuts s to at most n bytes (n ≥ 3) on a rune boundary, with "…"
// marking the cut: every text an event carries is bounded this way.
func Clamp(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(n-len("…"), 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
