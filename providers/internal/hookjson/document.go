// Package hookjson edits the "hooks" object of an agent's JSON config
// structurally: Claude Code's settings.json and Codex's hooks.json both hold
//
//	{"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…"}]}]}}
//
// Only the hooks object is taken apart; every other member is kept as the
// raw bytes it was read as, in the user's order. Inside it, events, groups
// and handlers keep their order too, and anything that is not ag's own
// handler is written back as read. The output is re-indented the way the
// file was (so whitespace may change, meaning never).
package hookjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Doc is one parsed config file.
type Doc struct {
	orig    []byte   // the file as read; nil for a new or empty one
	members []member // top level, in file order
	hooks   *hooksObj
	parsed  []member // top level as read, with offsets into orig
	dirty   bool     // Install or Uninstall changed something
	indent  string   // "" writes compact
	newline bool     // end with "\n"
}

// member is one "key": value pair. raw is nil where the value was parsed
// into structure (the top-level "hooks", a group's "hooks"). At the top
// level, the offsets say where the member was in the file.
type member struct {
	key                        string
	raw                        json.RawMessage
	keyStart, valStart, valEnd int
}

type hooksObj struct {
	events []*eventList
}

type eventList struct {
	name   string
	groups []*group
	raw    json.RawMessage // set when untouched: written back as read
}

type group struct {
	members  []member // "hooks" has raw == nil and lives in handlers
	matcher  *string
	handlers []*handler
	noHooks  bool // the group has no "hooks" member: leave it so
}

// handler is one entry of a group's "hooks" array, kept as read.
type handler struct {
	raw     json.RawMessage
	keys    []string
	typ     string
	command string
	args    []string
	timeout json.RawMessage
}

// ShapeError says the file is JSON but not the shape an agent reads.
type ShapeError struct{ Msg string }

func (e *ShapeError) Error() string { return e.Msg }

func shapef(format string, a ...any) error { return &ShapeError{fmt.Sprintf(format, a...)} }

// Format is what a file may hold beyond Claude's settings.json.
type Format struct {
	// Comments: // and /* */ comments (Gemini CLI reads its settings.json
	// through strip-json-comments). Those outside "hooks" are kept as they
	// are; inside "hooks" only in what an edit leaves untouched.
	Comments bool
	// Settings are names under "hooks" that configure the hooks rather
	// than name an event (Gemini's "enabled", "disabled",
	// "notifications"): kept as read, never taken apart.
	Settings []string
}

// Parse reads a config file's bytes. An empty file is an empty object.
func Parse(data []byte) (*Doc, error) { return Format{}.Parse(data) }

// Parse reads a config file's bytes in format f.
func (f Format) Parse(data []byte) (*Doc, error) {
	d := &Doc{indent: "  ", newline: true}
	text := data
	if f.Comments {
		var err error
		if text, err = blankComments(data); err != nil {
			return nil, err
		}
	}
	if len(bytes.TrimSpace(text)) == 0 {
		if len(bytes.TrimSpace(data)) > 0 {
			d.orig = data // only comments: kept until something is written
		}
		return d, nil
	}
	d.indent, d.newline = layout(data)
	d.orig = data // offsets into text are offsets into data: comments became spaces
	members, err := objectMembers(text)
	if err != nil {
		return nil, syntaxAt(text, err)
	}
	d.parsed = members
	seen := false
	for _, m := range members {
		if m.key != "hooks" {
			d.members = append(d.members, m)
			continue
		}
		if seen {
			return nil, shapef(`"hooks" appears twice`)
		}
		seen = true
		h, err := parseHooks(m.raw, f.Settings)
		if err != nil {
			return nil, err
		}
		d.hooks = h
		m.raw = nil
		d.members = append(d.members, m)
	}
	return d, nil
}

// objectMembers splits a JSON object into its members, values raw.
func objectMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, &ShapeError{"not a JSON object"}
	}
	var out []member
	for dec.More() {
		keyStart := int(dec.InputOffset())
		for keyStart < len(data) && bytes.IndexByte([]byte(" \t\r\n,"), data[keyStart]) >= 0 {
			keyStart++
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key is not a string")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		out = append(out, member{key: key, raw: raw, keyStart: keyStart, valStart: end - len(raw), valEnd: end})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, errors.New("data after the closing brace")
		}
		return nil, err
	}
	return out, nil
}

// syntaxAt turns a decoder error into "line L: …".
func syntaxAt(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := min(int(se.Offset), len(data))
		line := 1 + bytes.Count(data[:off], []byte("\n"))
		return fmt.Errorf("line %d: %v", line, err)
	}
	var ue *json.UnmarshalTypeError
	if errors.As(err, &ue) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("truncated or invalid JSON: %v", err)
	}
	return err
}

// blankComments is data with every // and /* */ comment outside strings
// turned into spaces (newlines kept), so offsets and line numbers stay.
func blankComments(data []byte) ([]byte, error) {
	var out []byte // a copy once the first comment is seen
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(data) && (data[i+1] == '/' || data[i+1] == '*'):
			if out == nil {
				out = bytes.Clone(data)
			}
			start, block := i, data[i+1] == '*'
			end := len(data)
			if block {
				j := bytes.Index(data[i+2:], []byte("*/"))
				if j < 0 {
					line := 1 + bytes.Count(data[:i], []byte("\n"))
					return nil, fmt.Errorf("line %d: unterminated /* comment", line)
				}
				end = i + 2 + j + 2
			} else if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
				end = i + j
			}
			for k := start; k < end; k++ {
				if out[k] != '\n' && out[k] != '\r' {
					out[k] = ' '
				}
			}
			i = end - 1
		}
	}
	if out == nil {
		return data, nil
	}
	return out, nil
}

// layout guesses the file's indentation from its first indented line.
func layout(data []byte) (indent string, newline bool) {
	newline = bytes.HasSuffix(bytes.TrimRight(data, " \t\r"), []byte("\n"))
	i := bytes.IndexByte(data, '\n')
	for i >= 0 && i+1 < len(data) {
		rest := data[i+1:]
		n := 0
		for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
			n++
		}
		if n > 0 && n < len(rest) && rest[n] != '\n' && rest[n] != '\r' {
			return string(rest[:n]), newline
		}
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if bytes.IndexByte(bytes.TrimSpace(data), '\n') < 0 {
		return "", newline // a one-line file stays one line
	}
	return "  ", newline
}

func parseHooks(raw json.RawMessage, settings []string) (*hooksObj, error) {
	h := &hooksObj{}
	if string(bytes.TrimSpace(raw)) == "null" {
		return h, nil
	}
	members, err := objectMembers(raw)
	if err != nil {
		var se *ShapeError
		if errors.As(err, &se) {
			return nil, shapef(`"hooks" is not an object`)
		}
		return nil, err
	}
	seen := map[string]bool{}
	for _, m := range members {
		if seen[m.key] {
			return nil, shapef(`"hooks" has %q twice`, m.key)
		}
		seen[m.key] = true
		ev := &eventList{name: m.key, raw: m.raw}
		if slices.Contains(settings, m.key) {
			h.events = append(h.events, ev) // no event: written back as read
			continue
		}
		var groups []json.RawMessage
		if err := json.Unmarshal(m.raw, &groups); err != nil {
			return nil, shapef("hooks.%s is not an array", m.key)
		}
		for i, graw := range groups {
			g, err := parseGroup(graw)
			if err != nil {
				return nil, shapef("hooks.%s[%d]: %v", m.key, i, err)
			}
			ev.groups = append(ev.groups, g)
		}
		h.events = append(h.events, ev)
	}
	return h, nil
}

func parseGroup(raw json.RawMessage) (*group, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, errors.New("not an object")
	}
	g := &group{noHooks: true}
	for _, m := range members {
		switch m.key {
		case "matcher":
			var s string
			if err := json.Unmarshal(m.raw, &s); err != nil {
				return nil, errors.New(`"matcher" is not a string`)
			}
			g.matcher = &s
		case "hooks":
			if !g.noHooks {
				return nil, errors.New(`"hooks" appears twice`)
			}
			g.noHooks = false
			var hs []json.RawMessage
			if err := json.Unmarshal(m.raw, &hs); err != nil {
				return nil, errors.New(`"hooks" is not an array`)
			}
			for i, hraw := range hs {
				h, err := parseHandler(hraw)
				if err != nil {
					return nil, fmt.Errorf("hooks[%d]: %v", i, err)
				}
				g.handlers = append(g.handlers, h)
			}
			m.raw = nil
		}
		g.members = append(g.members, m)
	}
	return g, nil
}

func parseHandler(raw json.RawMessage) (*handler, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return nil, errors.New("not an object")
	}
	h := &handler{raw: raw}
	for _, m := range members {
		h.keys = append(h.keys, m.key)
		switch m.key {
		case "type":
			json.Unmarshal(m.raw, &h.typ) // a non-string type is simply not ours
		case "command":
			json.Unmarshal(m.raw, &h.command)
		case "args":
			json.Unmarshal(m.raw, &h.args)
		case "timeout":
			h.timeout = m.raw
		}
	}
	return h, nil
}

// Bytes writes the document out. Members outside "hooks" keep their bytes
// exactly: the hooks value is spliced into the file as read, indented the
// way the file is; only a new file is written whole.
func (d *Doc) Bytes() []byte {
	var orig *member
	for i := range d.parsed {
		if d.parsed[i].key == "hooks" {
			orig = &d.parsed[i]
		}
	}
	switch {
	case !d.dirty && d.orig != nil:
		return d.orig
	case d.orig == nil || len(d.parsed) == 0 || (orig != nil && d.hooks == nil && len(d.parsed) == 1):
		return d.render()
	case orig != nil && d.hooks != nil: // replace the value
		return d.splice(orig.valStart, orig.valEnd, d.hooksText(d.prefixAt(orig.keyStart)))
	case orig != nil: // drop the member with the comma before (or after) it
		i := slices.IndexFunc(d.parsed, func(m member) bool { return m.key == "hooks" })
		if i > 0 {
			return d.splice(d.parsed[i-1].valEnd, orig.valEnd, "")
		}
		return d.splice(orig.keyStart, d.parsed[1].keyStart, "")
	case d.hooks != nil: // add it after the last member
		last := d.parsed[len(d.parsed)-1]
		prefix := d.prefixAt(d.parsed[0].keyStart)
		var b strings.Builder
		b.WriteByte(',')
		if d.indent != "" {
			b.WriteString("\n" + prefix)
		}
		b.WriteString(`"hooks":`)
		if d.indent != "" {
			b.WriteByte(' ')
		}
		b.WriteString(d.hooksText(prefix))
		return d.splice(last.valEnd, last.valEnd, b.String())
	}
	return d.orig
}

func (d *Doc) splice(from, to int, with string) []byte {
	out := make([]byte, 0, len(d.orig)+len(with))
	out = append(out, d.orig[:from]...)
	out = append(out, with...)
	return append(out, d.orig[to:]...)
}

// prefixAt is the indentation of the line holding offset: what the lines
// of a value written there start with.
func (d *Doc) prefixAt(off int) string {
	start := bytes.LastIndexByte(d.orig[:off], '\n') + 1
	ws := d.orig[start:off]
	if len(bytes.TrimLeft(ws, " \t")) != 0 {
		return d.indent // the key follows "{" on its line
	}
	return string(ws)
}

// hooksText is the hooks object, indented for a line starting with prefix.
func (d *Doc) hooksText(prefix string) string {
	var b bytes.Buffer
	d.hooks.write(&b)
	if d.indent == "" {
		return b.String()
	}
	var ib bytes.Buffer
	if json.Indent(&ib, b.Bytes(), prefix, d.indent) != nil {
		return b.String()
	}
	return ib.String()
}

// render writes the whole document.
func (d *Doc) render() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range d.members {
		if i > 0 {
			b.WriteByte(',')
		}
		writeKey(&b, m.key)
		if m.raw == nil {
			d.hooks.write(&b)
		} else {
			writeRaw(&b, m.raw)
		}
	}
	b.WriteByte('}')
	out := b.Bytes()
	if d.indent != "" {
		var ib bytes.Buffer
		if err := json.Indent(&ib, out, "", d.indent); err == nil {
			out = ib.Bytes()
		}
	}
	if d.newline {
		out = append(out, '\n')
	}
	return out
}

func writeKey(b *bytes.Buffer, k string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(k)
	b.Truncate(b.Len() - 1) // Encode's newline
	b.WriteByte(':')
}

func writeString(b *bytes.Buffer, s string) {
	writeKey(b, s)
	b.Truncate(b.Len() - 1)
}

// writeRaw writes a value as read; Compact keeps strings and numbers byte
// for byte and only drops insignificant whitespace.
func writeRaw(b *bytes.Buffer, raw json.RawMessage) {
	if err := json.Compact(b, raw); err != nil {
		b.Write(raw)
	}
}

func (h *hooksObj) write(b *bytes.Buffer) {
	b.WriteByte('{')
	for i, ev := range h.events {
		if i > 0 {
			b.WriteByte(',')
		}
		writeKey(b, ev.name)
		if ev.raw != nil {
			writeRaw(b, ev.raw)
			continue
		}
		b.WriteByte('[')
		for j, g := range ev.groups {
			if j > 0 {
				b.WriteByte(',')
			}
			g.write(b)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

func (g *group) write(b *bytes.Buffer) {
	b.WriteByte('{')
	for i, m := range g.members {
		if i > 0 {
			b.WriteByte(',')
		}
		writeKey(b, m.key)
		if m.raw != nil {
			writeRaw(b, m.raw)
			continue
		}
		b.WriteByte('[')
		for j, h := range g.handlers {
			if j > 0 {
				b.WriteByte(',')
			}
			writeRaw(b, h.raw)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

// describe is a handler's command line for messages.
func (h *handler) describe() string {
	if len(h.args) > 0 {
		return h.command + " " + strings.Join(h.args, " ")
	}
	return h.command
}
