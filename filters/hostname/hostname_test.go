package hostname

import (
	"os"
	"testing"
)

func TestSelf(t *testing.T) {
	sys, _ := os.Hostname()
	sys = Short(sys)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "AG_HOST" {
				return v
			}
			return ""
		}
	}
	s := Of(env(""))
	if s.Name != sys || !s.Is("") || !s.Is(sys) || s.Is("elsewhere") {
		t.Errorf("no AG_HOST: %+v", s)
	}
	s = Of(env(" devbox "))
	if s.Name != "devbox" || !s.Is("devbox") || !s.Is(sys) || !s.Is("") || s.Is("laptop") {
		t.Errorf("AG_HOST=devbox: %+v", s)
	}
	if got := s.Canon(sys); got != "devbox" {
		t.Errorf("Canon(%q) = %q", sys, got)
	}
	if got := s.Canon("laptop"); got != "laptop" {
		t.Errorf("Canon(laptop) = %q", got)
	}
	if Short("a.b.c") != "a" || Short("a") != "a" {
		t.Error("Short")
	}
	n := Named("b")
	if !n.Is("b") || !n.Is("") || n.Is(sys) && sys != "b" {
		t.Errorf("Named: %+v", n)
	}
}

func TestValid(t *testing.T) {
	for h, want := range map[string]bool{"devbox": true, "gpu-1.lab": true, "a_b": true, "": false,
		"x;#(id)": false, "a b": false, "é": false, "%3": false, string(make([]byte, 65)): false} {
		if Valid(h) != want {
			t.Errorf("Valid(%q) = %v", h, !want)
		}
	}
}
