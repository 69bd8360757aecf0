package agentdef

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// MaxSize bounds a definition file: the longest built-in is a few
// kilobytes, and a file read at every start must stay small.
const MaxSize = 64 << 10

// Error is a definition refused: the file, the line (0 when the whole
// file is at fault) and why.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// lines maps the path of every key in a document to the line it is on:
// "id", "screen.state[2].anchor", "screen.state[2].all[0].match",
// "keys.screens.plan.approve". A decoded struct keeps no positions, and a
// definition is refused at the line of the key at fault.
type lines map[string]int

// at is the line of path, else of the nearest enclosing key that has one.
func (l lines) at(path string) int {
	for path != "" {
		if n, ok := l[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

// has reports whether the document holds path.
func (l lines) has(path string) bool { _, ok := l[path]; return ok }

// parse decodes one definition strictly (an unknown key is refused, so a
// misspelt one never goes unnoticed) and indexes its keys' lines.
func parse(file string, data []byte) (*File, lines, error) {
	switch {
	case len(data) > MaxSize:
		return nil, nil, &Error{File: file, Msg: fmt.Sprintf("longer than %d bytes", MaxSize)}
	case !utf8.Valid(data):
		return nil, nil, &Error{File: file, Msg: "not UTF-8"}
	}
	var f File
	err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(&f)
	var de *toml.DecodeError
	var se *toml.StrictMissingError
	switch {
	case errors.As(err, &se) && len(se.Errors) > 0:
		e := se.Errors[0]
		line, _ := e.Position()
		return nil, nil, &Error{File: file, Line: line, Msg: "unknown key " + strings.Join(e.Key(), ".")}
	case errors.As(err, &de):
		line, _ := de.Position()
		return nil, nil, &Error{File: file, Line: line, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	case err != nil:
		return nil, nil, &Error{File: file, Msg: err.Error()}
	}
	return &f, index(data), nil
}

// index walks the document's expressions with go-toml's parser (the
// decoder above has already accepted it).
func index(data []byte) lines {
	l := lines{}
	var p unstable.Parser
	p.Reset(data)
	lineOf := func(off uint32) int { return bytes.Count(data[:min(int(off), len(data))], []byte("\n")) + 1 }
	counts := map[string]int{} // [[array tables]] seen so far, by path
	prefix := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			key, first := keyOf(e.Key())
			if e.Kind == unstable.ArrayTable {
				n := counts[key]
				counts[key] = n + 1
				// A nested [[a.b]] belongs to the last [[a]]: rewrite the
				// array tables its path crosses with their current index.
				key = indexed(key, counts) + "[" + strconv.Itoa(n) + "]"
			} else {
				key = indexed(key, counts)
			}
			prefix = key
			l[key] = lineOf(first)
		case unstable.KeyValue:
			walk(l, join(prefix, e), e.Value(), lineOf, lineOf(e.Raw.Offset))
		}
	}
	return l
}

// join is the path of a key/value expression under prefix.
func join(prefix string, kv *unstable.Node) string {
	k, _ := keyOf(kv.Key())
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// walk records path and, inside arrays and inline tables, its members.
func walk(l lines, path string, v *unstable.Node, lineOf func(uint32) int, line int) {
	l[path] = line
	switch v.Kind {
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); i++ {
			n := it.Node()
			at := line
			if n.Raw.Length > 0 {
				at = lineOf(n.Raw.Offset)
			}
			walk(l, path+"["+strconv.Itoa(i)+"]", n, lineOf, at)
		}
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			kv := it.Node()
			walk(l, join(path, kv), kv.Value(), lineOf, lineOf(kv.Raw.Offset))
		}
	}
}

// keyOf joins a dotted key's parts and says where its first part is.
func keyOf(it unstable.Iterator) (string, uint32) {
	var parts []string
	var first uint32
	for it.Next() {
		n := it.Node()
		if len(parts) == 0 {
			first = n.Raw.Offset
		}
		parts = append(parts, string(n.Data))
	}
	return strings.Join(parts, "."), first
}

// indexed rewrites each prefix of key that is an array table already
// seen with the index of its last element: screen.state.all → the last
// [[screen.state]]'s.
func indexed(key string, counts map[string]int) string {
	parts := strings.Split(key, ".")
	out := ""
	plain := ""
	for i, p := range parts {
		if plain == "" {
			plain = p
		} else {
			plain += "." + p
		}
		if out == "" {
			out = p
		} else {
			out += "." + p
		}
		if n, ok := counts[plain]; ok && i < len(parts)-1 && n > 0 {
			out += "[" + strconv.Itoa(n-1) + "]"
		}
	}
	return out
}
