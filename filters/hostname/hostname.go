// Package hostname says which machine an ag program runs on. The host is
// part of every session's identity: pane %3 on two machines is two panes,
// a remote pid is never looked for here, and an action is typed only on
// the host it names.
package hostname

import (
	"os"
	"strings"
)

// Self is this machine as ag names it: Name is $AG_HOST, else the system's
// host name up to its first dot. An event naming no host, or the system's
// own name while $AG_HOST gives another (a hook started outside the
// service's environment), is also from here.
type Self struct {
	Name    string
	aliases [2]string
}

// Of returns the machine env describes (os.Getenv in programs).
func Of(env func(string) string) Self {
	sys, _ := os.Hostname()
	sys = Short(sys)
	s := Self{Name: sys}
	if h := strings.TrimSpace(env("AG_HOST")); h != "" {
		s.Name = h
	}
	s.aliases = [2]string{s.Name, sys}
	return s
}

// Named returns a Self called name with no other alias (tests).
func Named(name string) Self { return Self{Name: name, aliases: [2]string{name, name}} }

// Short is a host name up to its first dot: "devbox.example.com" is "devbox".
func Short(h string) string {
	h, _, _ = strings.Cut(h, ".")
	return h
}

// Is reports whether host (from an event) names this machine.
func (s Self) Is(host string) bool {
	return host == "" || host == s.aliases[0] || host == s.aliases[1]
}

// Canon is host as this machine records it: its own names become Name.
func (s Self) Canon(host string) string {
	if s.Is(host) {
		return s.Name
	}
	return host
}

// Valid reports whether h can be a host's name: 1 to 64 letters, digits,
// dots, dashes and underscores. Anything else (from a broker anyone may
// publish to) is not taken as a host: it would reach tmux options, titles
// and topics.
func Valid(h string) bool {
	if len(h) == 0 || len(h) > 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
