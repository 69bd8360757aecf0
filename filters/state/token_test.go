package state

import (
	"testing"
	"time"
)

func TestToken(t *testing.T) {
	since := time.UnixMilli(1764580000123)
	if got := Token(since, 7); got != "1764580000123.7" {
		t.Errorf("Token = %q", got)
	}
	for _, c := range []struct {
		tok string
		gen int64
		ok  bool
	}{
		{"1764580000123.7", 7, true}, {"1.0", 0, true}, {"", 0, false}, {"12", 0, false},
		{"12.x", 0, false}, {"12.-3", 0, false}, {"a.b.9", 9, true},
	} {
		if g, ok := TokenGen(c.tok); g != c.gen || ok != c.ok {
			t.Errorf("TokenGen(%q) = %d, %v; want %d, %v", c.tok, g, ok, c.gen, c.ok)
		}
	}
	for _, c := range []struct {
		a, b  string
		ahead bool
	}{
		{"5.8", "5.7", true}, {"5.7", "5.7", false}, {"5.6", "5.7", false},
		{"9.8", "1.9", false}, // the generation decides, not the time
		{"5.8", "", true}, {"", "5.7", false}, {"bad", "5.7", false}, {"5.1", "bad", true},
	} {
		if got := TokenAhead(c.a, c.b); got != c.ahead {
			t.Errorf("TokenAhead(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
