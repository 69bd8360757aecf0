// Package shquote builds shell command lines out of attacker-shaped text
// (prompts, session ids, transcript paths) that end up typed into a shell.
//
// Quote wraps a value in POSIX single quotes. A Template is a command line
// with {name} placeholders, parsed the way sh reads it: every quoted
// placeholder must sit inside a real single-quoted span of a balanced
// template, and the constructs a simple scan cannot follow the way the shell
// does (double quotes, backticks, $(, backslashes, $') are refused outright,
// naming the one found. Substitution splices pre-split segments together
// (split/join), never a search-and-replace over text that may itself contain
// a placeholder or a replacement metacharacter.
package shquote

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Quote returns s as one POSIX single-quoted word: sh reads it back as
// exactly s, whatever s holds. A ' inside becomes '\” (close, escaped
// quote, reopen), the only way to put one in a single-quoted word.
func Quote(s string) string {
	return "'" + QuoteInner(s) + "'"
}

// QuoteInner is Quote without the surrounding quotes: the text to put
// between a template's own single quotes.
func QuoteInner(s string) string {
	return strings.ReplaceAll(s, "'", `'\''`)
}

// Kind says how a placeholder's value is made safe.
type Kind int

const (
	// Quoted values (prompts, paths, ids) may hold anything but NUL; the
	// placeholder must be inside single quotes, where the value is escaped.
	Quoted Kind = iota
	// Inert values (a launcher, maybe followed by a flag and a model name)
	// land unquoted, so they must be plain words (CheckWords); the
	// placeholder must be outside any quotes.
	Inert
)

// Template is a parsed command template.
type Template struct {
	src  string
	segs []seg
}

type seg struct {
	lit   string // literal template text, or
	name  string // a placeholder name
	kind  Kind
	inSQ  bool // placeholder sits inside single quotes
	place bool
}

// Error is a template the parser refuses, with where and why.
type Error struct {
	Template string
	Offset   int
	Why      string
}

func (e *Error) Error() string {
	return fmt.Sprintf("template %q: at byte %d: %s", e.Template, e.Offset, e.Why)
}

// Parse reads tmpl, whose placeholders are the keys of kinds ({prompt},
// {bin}, ...). A brace that does not open a known placeholder is literal.
// required names placeholders that must appear at least once.
func Parse(tmpl string, kinds map[string]Kind, required ...string) (*Template, error) {
	t := &Template{src: tmpl}
	fail := func(off int, format string, a ...any) (*Template, error) {
		return nil, &Error{Template: tmpl, Offset: off, Why: fmt.Sprintf(format, a...)}
	}
	inSQ := false
	sqStart := 0
	lit := strings.Builder{}
	seen := map[string]bool{}
	for i := 0; i < len(tmpl); {
		c := tmpl[i]
		if c == '{' {
			if end := strings.IndexByte(tmpl[i:], '}'); end > 0 {
				name := tmpl[i+1 : i+end]
				if k, ok := kinds[name]; ok {
					switch {
					case k == Quoted && !inSQ:
						return fail(i, "{%s} is not inside single quotes", name)
					case k == Inert && inSQ:
						return fail(i, "{%s} must not be inside quotes", name)
					}
					if lit.Len() > 0 {
						t.segs = append(t.segs, seg{lit: lit.String()})
						lit.Reset()
					}
					t.segs = append(t.segs, seg{name: name, kind: k, inSQ: inSQ, place: true})
					seen[name] = true
					i += end + 1
					continue
				}
			}
		}
		if c == 0 {
			return fail(i, "NUL byte")
		}
		if inSQ {
			// Inside single quotes sh takes every byte literally until
			// the next '; nothing else needs modelling.
			if c == '\'' {
				inSQ = false
			}
		} else {
			switch {
			case c == '\'':
				inSQ, sqStart = true, i
			case c == '"':
				return fail(i, "double quote refused (inside one, ' is ordinary and $( expands)")
			case c == '`':
				return fail(i, "backtick refused (command substitution)")
			case c == '\\':
				return fail(i, "backslash refused (an escape desynchronises any scan from the shell)")
			case c == '$' && i+1 < len(tmpl) && tmpl[i+1] == '(':
				return fail(i, "$( refused (command substitution)")
			case c == '$' && i+1 < len(tmpl) && tmpl[i+1] == '\'':
				return fail(i, "$' refused (ANSI-C quoting reads \\' inside it)")
			}
		}
		lit.WriteByte(c)
		i++
	}
	if inSQ {
		return fail(sqStart, "single quote opened here is never closed")
	}
	if lit.Len() > 0 {
		t.segs = append(t.segs, seg{lit: lit.String()})
	}
	for _, r := range required {
		if !seen[r] {
			return fail(len(tmpl), "{%s} is required", r)
		}
	}
	return t, nil
}

// Has reports whether the template uses placeholder name.
func (t *Template) Has(name string) bool {
	for _, s := range t.segs {
		if s.place && s.name == name {
			return true
		}
	}
	return false
}

// String is the template's source.
func (t *Template) String() string { return t.src }

// Expand substitutes every occurrence of each placeholder. Values are
// checked for their kind: Quoted ones must not hold NUL, Inert ones must be
// plain words. A placeholder with no value is an error.
func (t *Template) Expand(values map[string]string) (string, error) {
	var b strings.Builder
	for _, s := range t.segs {
		if !s.place {
			b.WriteString(s.lit)
			continue
		}
		v, ok := values[s.name]
		if !ok {
			return "", fmt.Errorf("no value for {%s}", s.name)
		}
		switch s.kind {
		case Quoted:
			if strings.IndexByte(v, 0) >= 0 {
				return "", fmt.Errorf("{%s}: NUL byte cannot pass through a shell", s.name)
			}
			if !utf8.ValidString(v) {
				return "", fmt.Errorf("{%s}: not valid UTF-8", s.name)
			}
			b.WriteString(QuoteInner(v))
		case Inert:
			if err := CheckWords(v); err != nil {
				return "", fmt.Errorf("{%s}: %w", s.name, err)
			}
			b.WriteString(v)
		}
	}
	return b.String(), nil
}

// MaxWord bounds an inert word (a launcher path, a model name).
const MaxWord = 256

// CheckWord accepts a value that is safe unquoted (the seed's
// MODEL_PATTERN): letters, digits, . _ : / - only, at most MaxWord bytes,
// never a leading - (the command would read an option). None of these
// bytes means anything to sh: no globs, no =, no ~, no spaces.
func CheckWord(v string) error {
	switch {
	case v == "":
		return fmt.Errorf("empty")
	case len(v) > MaxWord:
		return fmt.Errorf("longer than %d bytes", MaxWord)
	case v[0] == '-':
		return fmt.Errorf("%q starts with -", v)
	}
	for i := 0; i < len(v); i++ {
		if !wordByte(v[i]) {
			return fmt.Errorf("%q: character %q not allowed", v, v[i])
		}
	}
	return nil
}

// CheckWords accepts words of CheckWord's bytes separated by single
// spaces ("claude --model opus"). Only the first word is held to CheckWord
// in full: later ones may be flags the provider's own data put in, and the
// caller has checked with CheckWord each value that came from outside.
func CheckWords(v string) error {
	first, _, _ := strings.Cut(v, " ")
	if err := CheckWord(first); err != nil {
		return err
	}
	for _, w := range strings.Split(v, " ") {
		if w == "" {
			return fmt.Errorf("%q: empty word", v)
		}
		if len(w) > MaxWord {
			return fmt.Errorf("longer than %d bytes", MaxWord)
		}
		for i := 0; i < len(w); i++ {
			if !wordByte(w[i]) {
				return fmt.Errorf("%q: character %q not allowed", v, w[i])
			}
		}
	}
	return nil
}

func wordByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("._:/-", c) >= 0
}
