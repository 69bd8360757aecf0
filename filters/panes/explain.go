package panes

import (
	"fmt"
	"strings"
)

// Diagnose says, for each state of r, what it made of the screen: where
// it matched, or the first thing that kept it out (ag-detect --explain,
// and the author of a rule wondering why it does not fire). Lines are
// numbered from 1, as the examined lines are.
func Diagnose(r *Rules, title, screen string) []string {
	lines := Lines(screen, r.Lines)
	lower := strings.ToLower(strings.Join(lines, "\n"))
	var out []string
	for i := range r.States {
		s := &r.States[i]
		out = append(out, s.Name+": "+s.diagnose(lines, lower))
	}
	for _, t := range r.Titles {
		if t.Re.MatchString(title) {
			out = append(out, fmt.Sprintf("%s: the title %q matches %s", t.Name, title, t.Re))
		} else {
			out = append(out, fmt.Sprintf("%s: the title %q does not match %s", t.Name, title, t.Re))
		}
	}
	return out
}

func (s *State) diagnose(lines []string, lower string) string {
	if s.Aside {
		return "aside: read only when asked for by name"
	}
	if len(s.Needs) > 0 && !containsAny(lower, s.Needs) {
		return fmt.Sprintf("none of needs %q on the screen", s.Needs)
	}
	var why string
	below := 0
	for i := len(lines) - 1; i >= 0; i-- {
		if s.Bottom > 0 && below > s.Bottom {
			if why == "" {
				return fmt.Sprintf("anchor %s matches no line within %d non-blank lines of the bottom", s.Anchor, s.Bottom)
			}
			return why
		}
		if s.Anchor.MatchString(lines[i]) {
			if fail := s.failing(lines, i); fail == "" {
				return fmt.Sprintf("matches: line %d %q", i+1, strings.TrimSpace(lines[i]))
			} else if why == "" {
				why = fmt.Sprintf("anchor on line %d, but %s", i+1, fail)
			}
		}
		if strings.TrimSpace(lines[i]) != "" {
			below++
		}
	}
	if why == "" {
		return fmt.Sprintf("anchor %s matches no line", s.Anchor)
	}
	return why
}

// failing is the first condition that does not hold at anchor at, or "".
func (s *State) failing(lines []string, at int) string {
	for i, c := range s.All {
		if !c.matches(lines, at) {
			return fmt.Sprintf("all[%d] %s is on no line %+d..%+d", i, c.Re, c.From, c.To)
		}
	}
	if len(s.Any) > 0 {
		ok := false
		for _, c := range s.Any {
			ok = ok || c.matches(lines, at)
		}
		if !ok {
			return "no line matches any of its any"
		}
	}
	for i, c := range s.None {
		if c.matches(lines, at) {
			return fmt.Sprintf("none[%d] %s is there (lines %+d..%+d)", i, c.Re, c.From, c.To)
		}
	}
	return ""
}
