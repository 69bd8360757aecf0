package event

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClamp(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven chars", 10, "eleven …"},
		{"ab€def", 7, "ab…"},    // the cut would split € (3 bytes): back to its start
		{"ab€def", 8, "ab€def"}, // 8 bytes fit whole
		{"ab€defg", 8, "ab€…"},
		{"", 3, ""},
	} {
		if got := Clamp(tc.s, tc.n); got != tc.want {
			t.Errorf("Clamp(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// FuzzClamp: the result fits n, is a prefix of s plus the mark, and cuts
// no rune in two.
func FuzzClamp(f *testing.F) {
	f.Add("héllo wörld", 7)
	f.Add(strings.Repeat("€", 100), 50)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 3 || n > 1<<20 {
			return
		}
		got := Clamp(s, n)
		if len(got) > n {
			t.Fatalf("Clamp(%q, %d) = %q: %d bytes", s, n, got, len(got))
		}
		if got == s {
			return
		}
		head, ok := strings.CutSuffix(got, "…")
		if !ok || !strings.HasPrefix(s, head) {
			t.Fatalf("Clamp(%q, %d) = %q: not a prefix and the mark", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Clamp(%q, %d) = %q: a rune cut in two", s, n, got)
		}
	})
}
