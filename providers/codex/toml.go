package codex

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex's hooks feature flag lives in config.toml as [features] hooks
// (0.124+; on by default since 0.130) or, before 0.124, codex_hooks. The
// user's config is theirs: comments, order and formatting are kept byte for
// byte. go-toml's unstable parser gives the byte range of every key and
// value, so the flag is edited in place (one value flipped, or one line
// inserted) and everything else is copied untouched; the result is then
// parsed again and compared with the original as data, minus the flag.

// Flag names, newest first.
const (
	FlagHooks       = "hooks"
	FlagCodexHooks  = "codex_hooks"
	featuresSection = "features"
)

// FlagState is what config.toml says about the hooks feature.
type FlagState struct {
	Key   string // "hooks", "codex_hooks", or "" when absent
	Set   bool   // the key is present
	Value bool   // its value, when it is a boolean
	Bool  bool   // the value is a boolean
}

// On reports whether the flag is explicitly true.
func (s FlagState) On() bool { return s.Set && s.Bool && s.Value }

// flagSite is where the flag is, or where it would go.
type flagSite struct {
	state FlagState
	value unstable.Range // the value's bytes, when set

	form      string // "table", "dotted", "inline", or "" when features is absent
	insertAt  int    // where a new line goes (form table/dotted)
	indent    []byte // of the previous key in that table
	needsNL   bool   // the byte before insertAt is not a newline
	inlineEnd int    // form inline: unused beyond refusing
}

// ReadHooksFlag reports the hooks feature flag in a config.toml.
func ReadHooksFlag(data []byte) (FlagState, error) {
	s, err := findFlag(data)
	return s.state, err
}

// EnableHooksFlag returns data with the hooks feature on: unchanged when
// it already is (under either name); an existing false value is flipped in
// place, keeping its name; otherwise "hooks = true" is added to the
// features table, which is created at the end when there is none.
func EnableHooksFlag(data []byte) (out []byte, changed bool, err error) {
	s, err := findFlag(data)
	if err != nil {
		return nil, false, err
	}
	if s.state.On() {
		return data, false, nil
	}
	nl := []byte("\n")
	if bytes.Contains(data, []byte("\r\n")) {
		nl = []byte("\r\n")
	}
	switch {
	case s.state.Set && !s.state.Bool:
		return nil, false, fmt.Errorf("[features] %s is not true or false; set it to true by hand", s.state.Key)
	case s.state.Set:
		out = splice(data, int(s.value.Offset), int(s.value.Offset+s.value.Length), []byte("true"))
	case s.form == "inline":
		return nil, false, errors.New("features is an inline table; add hooks = true to it by hand")
	case s.form == "table" || s.form == "dotted":
		line := append([]byte(nil), s.indent...)
		if s.form == "dotted" {
			line = append(line, "features."...)
		}
		line = append(line, FlagHooks+" = true"...)
		line = append(line, nl...)
		if s.needsNL {
			line = append(append([]byte(nil), nl...), line...)
		}
		out = splice(data, s.insertAt, s.insertAt, line)
	default:
		var add []byte
		if len(data) > 0 && data[len(data)-1] != '\n' {
			add = append(add, nl...)
		}
		if len(bytes.TrimSpace(data)) > 0 {
			add = append(add, nl...) // a blank line before the new table
		}
		add = append(add, "[features]"...)
		add = append(add, nl...)
		add = append(add, FlagHooks+" = true"...)
		add = append(add, nl...)
		out = splice(data, len(data), len(data), add)
	}
	if err := sameButFlag(data, out); err != nil {
		return nil, false, fmt.Errorf("refusing to edit config.toml: %w", err)
	}
	return out, true, nil
}

func splice(data []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(data)+len(with))
	out = append(out, data[:from]...)
	out = append(out, with...)
	return append(out, data[to:]...)
}

// sameButFlag checks the edit: the new document parses, has the flag on,
// and equals the old one as data once the flag is taken out of both.
func sameButFlag(before, after []byte) error {
	var a, b map[string]any
	if err := toml.Unmarshal(before, &a); err != nil {
		return err
	}
	if err := toml.Unmarshal(after, &b); err != nil {
		return fmt.Errorf("the edit does not parse: %w", err)
	}
	fb, _ := b[featuresSection].(map[string]any)
	if on, _ := fb[FlagHooks].(bool); !on {
		if on, _ := fb[FlagCodexHooks].(bool); !on {
			return errors.New("the edit did not turn the flag on")
		}
	}
	for _, m := range []map[string]any{a, b} {
		if f, ok := m[featuresSection].(map[string]any); ok {
			delete(f, FlagHooks)
			delete(f, FlagCodexHooks)
			if len(f) == 0 {
				delete(m, featuresSection)
			}
		}
	}
	if !reflect.DeepEqual(a, b) {
		return errors.New("the edit changed more than the hooks flag")
	}
	return nil
}

// findFlag walks the top-level expressions of a TOML document.
func findFlag(data []byte) (flagSite, error) {
	var s flagSite
	var p unstable.Parser
	p.Reset(data)
	var table []string // the current [table] header's key
	inFeatures := false
	// Nodes live in an arena the next expression reuses: copy what is needed.
	var hooks, codexHooks unstable.Range
	var hooksState, codexState FlagState
	record := func(name string, v *unstable.Node) {
		st := FlagState{Key: name, Set: true}
		if v.Kind == unstable.Bool {
			st.Bool = true
			st.Value = string(v.Data) == "true"
		}
		if name == FlagHooks {
			hooks, hooksState = v.Raw, st
		} else {
			codexHooks, codexState = v.Raw, st
		}
	}
	for p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyOf(n.Key())
			inFeatures = n.Kind == unstable.Table && len(table) == 1 && table[0] == featuresSection
			if inFeatures {
				s.form = "table"
				s.insertAt, s.needsNL = lineEnd(data, lastKeyEnd(n.Key()))
				s.indent = nil
			}
		case unstable.KeyValue:
			key := keyOf(n.Key())
			full := append(append([]string(nil), table...), key...)
			v := n.Value()
			switch {
			case inFeatures:
				if len(key) == 1 && (key[0] == FlagHooks || key[0] == FlagCodexHooks) {
					record(key[0], v)
				}
				s.insertAt, s.needsNL = lineEnd(data, int(n.Raw.Offset+n.Raw.Length))
				s.indent = indentOf(data, int(n.Raw.Offset))
			case len(table) == 0 && len(full) >= 2 && full[0] == featuresSection:
				s.form = "dotted"
				if len(full) == 2 && (full[1] == FlagHooks || full[1] == FlagCodexHooks) {
					record(full[1], v)
				}
				s.insertAt, s.needsNL = lineEnd(data, int(n.Raw.Offset+n.Raw.Length))
				s.indent = indentOf(data, int(n.Raw.Offset))
			case len(table) == 0 && len(full) == 1 && full[0] == featuresSection && v.Kind == unstable.InlineTable:
				s.form = "inline"
				it := v.Children()
				for it.Next() {
					kv := it.Node()
					if k := keyOf(kv.Key()); len(k) == 1 && (k[0] == FlagHooks || k[0] == FlagCodexHooks) {
						record(k[0], kv.Value())
					}
				}
			}
		}
	}
	if err := p.Error(); err != nil {
		return s, parseError(data, err)
	}
	// The syntax pass does not see semantic errors (a key defined twice, a
	// table redefined): a file Codex itself would reject is never edited.
	var whole map[string]any
	if err := toml.Unmarshal(data, &whole); err != nil {
		return s, err
	}
	// The newer name wins when both are present.
	switch {
	case hooksState.Set:
		s.state, s.value = hooksState, hooks
	case codexState.Set:
		s.state, s.value = codexState, codexHooks
	}
	return s, nil
}

func parseError(data []byte, err error) error {
	var perr *unstable.ParserError
	if errors.As(err, &perr) {
		row := 1 + bytes.Count(data[:offsetIn(data, perr.Highlight)], []byte("\n"))
		return fmt.Errorf("line %d: %s", row, perr.Message)
	}
	return err
}

// offsetIn is where sub starts inside data (0 if it is not a subslice).
func offsetIn(data, sub []byte) int {
	if len(sub) == 0 || cap(sub) > cap(data) {
		return 0
	}
	off := cap(data) - cap(sub)
	if off < 0 || off > len(data) {
		return 0
	}
	return off
}

func keyOf(it unstable.Iterator) []string {
	var k []string
	for it.Next() {
		k = append(k, string(it.Node().Data))
	}
	return k
}

func lastKeyEnd(it unstable.Iterator) int {
	end := 0
	for it.Next() {
		r := it.Node().Raw
		end = int(r.Offset + r.Length)
	}
	return end
}

// lineEnd is the offset just past the newline ending the line that holds
// off, and whether the document ends there without one.
func lineEnd(data []byte, off int) (int, bool) {
	i := bytes.IndexByte(data[off:], '\n')
	if i < 0 {
		return len(data), true
	}
	return off + i + 1, false
}

func indentOf(data []byte, off int) []byte {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	ind := data[start:off]
	if len(bytes.TrimLeft(ind, " \t")) != 0 {
		return nil
	}
	return append([]byte(nil), ind...)
}

// Off is a hooks flag the user set to false by hand: where, and the
// comment on its line.
type Off struct {
	Key     string
	Line    int
	Comment string // the line's comment, without the "#"
}

// TurnedOff reports whether data turns the hooks feature off explicitly
// (false), with its line and comment, so an install that turns it on can
// say so.
func TurnedOff(data []byte) (Off, bool) {
	s, err := findFlag(data)
	if err != nil || !s.state.Set || !s.state.Bool || s.state.Value {
		return Off{}, false
	}
	end := int(s.value.Offset + s.value.Length)
	off := Off{Key: s.state.Key, Line: 1 + bytes.Count(data[:end], []byte("\n"))}
	rest := data[end:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	if _, c, ok := bytes.Cut(rest, []byte("#")); ok {
		off.Comment = string(bytes.TrimSpace(c))
	}
	return off, true
}
