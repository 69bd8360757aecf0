// Package hookjson edits the "hooks" object of an agent's JSON config
// structurally: Claude Code's settings.json and Codex's hooks.json both hold
//
//	{"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…"}]}]}}
//
// Only the hooks object is taken apart; every other member is kept as the
// raw bytes it was read as, in the user's order. Inside it, events, groups
// and handlers keep their order too, and the file is edited, not
// rewritten: what ag adds is spliced in after the last element of its
// list, with the separator the list already uses; what it removes goes
// with the separator before it; every other byte stays where it was. So
// an uninstall after an install gives back the file byte for byte — a
// compact one-line group stays one line, an odd indentation stays odd —
// and only new text (a new group, a new event) is indented by guess.
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
	replace []byte   // when set, Bytes is this (the user's own file, restored)
	goes    bool     // uninstall: the file goes (ag's install made it)
}

// member is one "key": value pair. raw is nil where the value was parsed
// into structure (the top-level "hooks", a group's "hooks"). At the top
// level, the offsets say where the member was in the file.
type member struct {
	key                        string
	raw                        json.RawMessage
	keyStart, valStart, valEnd int
}

// span is a byte range of the file as read; a zero span is something new.
type span struct{ start, end int }

func (sp span) none() bool { return sp.end == 0 }

type hooksObj struct {
	val    span // the object, as read
	events []*eventList
	orig   []span // the members as read, "key": value
}

type eventList struct {
	name    string
	at, val span // the member and its array, as read
	idx     int  // its index among the object's members as read; -1 new
	groups  []*group
	orig    []span // the groups as read
	changed bool
	setting json.RawMessage // a hook setting, not an event (Format.Settings): kept as read
}

type group struct {
	members  []member // "hooks" has raw == nil and lives in handlers
	matcher  *string
	handlers []*handler
	noHooks  bool // the group has no "hooks" member: leave it so
	at       span // the group, as read
	idx      int  // index among its event's groups as read; -1 new
	hooksVal span // its "hooks" array, as read
	orig     []span
	changed  bool
}

// handler is one entry of a group's "hooks" array, kept as read.
type handler struct {
	raw     json.RawMessage
	keys    []string
	typ     string
	command string
	args    []string
	timeout json.RawMessage
	at      span
	idx     int // -1 new
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
	// Flat: "hooks" is another agent's schema (Copilot's and Cursor's
	// flat lists of handlers), read and written whole by the caller
	// (ReplaceMember); never taken apart as Claude's groups.
	Flat bool
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
		if f.Flat {
			d.members = append(d.members, m)
			continue
		}
		h, err := parseHooks(m.raw, m.valStart, f.Settings)
		if err != nil {
			return nil, err
		}
		d.hooks = h
		m.raw = nil
		d.members = append(d.members, m)
	}
	return d, nil
}

// Plain is data as JSON: with f.Comments, every comment outside strings
// made spaces (what f.Parse reads).
func (f Format) Plain(data []byte) ([]byte, error) {
	if !f.Comments {
		return data, nil
	}
	return blankComments(data)
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

// arrayElems splits a JSON array into its elements' spans (offsets from
// base, where data begins in the file).
func arrayElems(data []byte, base int) ([]span, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('[') {
		return nil, errors.New("not an array")
	}
	var out []span
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		out = append(out, span{base + end - len(raw), base + end})
	}
	return out, nil
}

func parseHooks(raw json.RawMessage, base int, settings []string) (*hooksObj, error) {
	h := &hooksObj{val: span{base, base + len(raw)}}
	if string(bytes.TrimSpace(raw)) == "null" {
		h.val = span{} // written anew
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
	for i, m := range members {
		if seen[m.key] {
			return nil, shapef(`"hooks" has %q twice`, m.key)
		}
		seen[m.key] = true
		ev := &eventList{name: m.key, idx: i,
			at:  span{base + m.keyStart, base + m.valEnd},
			val: span{base + m.valStart, base + m.valEnd}}
		h.orig = append(h.orig, ev.at)
		if slices.Contains(settings, m.key) {
			ev.setting = m.raw // no event: written back as read
			h.events = append(h.events, ev)
			continue
		}
		elems, err := arrayElems(m.raw, ev.val.start)
		if err != nil {
			return nil, shapef("hooks.%s is not an array", m.key)
		}
		ev.orig = elems
		for i, e := range elems {
			g, err := parseGroup(raw[e.start-base:e.end-base], e.start)
			if err != nil {
				return nil, shapef("hooks.%s[%d]: %v", m.key, i, err)
			}
			g.at, g.idx = e, i
			ev.groups = append(ev.groups, g)
		}
		h.events = append(h.events, ev)
	}
	return h, nil
}

func parseGroup(raw json.RawMessage, base int) (*group, error) {
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
			g.hooksVal = span{base + m.valStart, base + m.valEnd}
			elems, err := arrayElems(m.raw, g.hooksVal.start)
			if err != nil {
				return nil, errors.New(`"hooks" is not an array`)
			}
			g.orig = elems
			for i, e := range elems {
				h, err := parseHandler(raw[e.start-base : e.end-base])
				if err != nil {
					return nil, fmt.Errorf("hooks[%d]: %v", i, err)
				}
				h.at, h.idx = e, i
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
	case d.replace != nil:
		return d.replace
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

// hooksText is the hooks object for a line starting with prefix: the one
// in the file, edited (see editList), or a new one, indented the way the
// file is.
func (d *Doc) hooksText(prefix string) string {
	if !d.hooks.val.none() {
		return d.hooksEdited()
	}
	var b bytes.Buffer
	d.hooks.write(&b)
	return d.indented(b.String(), prefix)
}

// indented is compact JSON laid out for a line starting with prefix, in
// the file's indentation; compact where the file is.
func (d *Doc) indented(compact, prefix string) string {
	if d.indent == "" {
		return compact
	}
	var ib bytes.Buffer
	if json.Indent(&ib, []byte(compact), prefix, d.indent) != nil {
		return compact
	}
	return ib.String()
}

// piece is one element of an edited list: an element as read (idx into
// the list's elements, text "" to copy it, else its new text, already
// laid out) or a new one (idx -1: compact JSON, key set for a member).
type piece struct {
	idx       int
	key, text string
}

// editList writes the list (array or object) at c, whose elements as read
// are orig, holding final instead. Elements kept keep their bytes and the
// separators they had; a removed one takes the separator before it (after
// it, for the first); a new one comes after the last with the separator
// the list already uses, laid out like the line it lands on. Removing
// what was added thus gives back the bytes that were there.
func (d *Doc) editList(c span, orig []span, final []piece) string {
	if len(final) == 0 {
		return string(d.orig[c.start]) + string(d.orig[c.end-1])
	}
	var lead, trail, sep string
	seps := make([]string, len(orig))
	if len(orig) > 0 {
		lead = string(d.orig[c.start+1 : orig[0].start])
		trail = string(d.orig[orig[len(orig)-1].end : c.end-1])
		for i := 1; i < len(orig); i++ {
			seps[i] = string(d.orig[orig[i-1].end:orig[i].start])
		}
		switch {
		case len(orig) > 1:
			sep = seps[len(orig)-1]
		case lead == "" && bytes.Contains(d.orig[c.start:c.end], []byte(`": `)):
			sep = ", " // [{"a": 1}]: one element, spaced
		default:
			sep = "," + lead
		}
	} else if d.indent != "" {
		line := d.lineIndent(c.start)
		lead, trail = "\n"+line+d.indent, "\n"+line
		sep = "," + lead
	} else {
		sep = ","
	}
	var b strings.Builder
	b.WriteByte(d.orig[c.start])
	last := -2 // the index as read of the element written last; -2: none yet
	for _, p := range final {
		before := sep
		switch {
		case last == -2:
			before = lead
		case p.idx > 0 && last == p.idx-1:
			before = seps[p.idx] // its own neighbour is still there
		case p.idx > 0:
			before = seps[p.idx]
		}
		b.WriteString(before)
		switch {
		case p.idx >= 0 && p.text == "":
			b.Write(d.orig[orig[p.idx].start:orig[p.idx].end])
		case p.idx >= 0:
			b.WriteString(p.text)
		default:
			prefix, multiline := afterNewline(before)
			val, spaced := p.text, multiline || bytes.Contains(d.orig[c.start:c.end], []byte(`": `))
			switch {
			case multiline:
				val = d.indented(val, prefix)
			case spaced:
				val = spaceOut(val) // a one-line list written {"a": 1, "b": 2}
			}
			if p.key != "" {
				var kb bytes.Buffer
				writeKey(&kb, p.key)
				if spaced && d.indent != "" {
					kb.WriteByte(' ')
				}
				val = kb.String() + val
			}
			b.WriteString(val)
		}
		last = p.idx
		if p.idx < 0 {
			last = -1
		}
	}
	b.WriteString(trail)
	b.WriteByte(d.orig[c.end-1])
	return b.String()
}

// spaceOut is compact JSON with a space after each ':' and ',' outside
// strings, the way many people write one-line objects.
func spaceOut(compact string) string {
	var b strings.Builder
	in, esc := false, false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		b.WriteByte(c)
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// afterNewline is what follows the last newline of s: the indentation of
// the line a separator leads to, and whether there is one.
func afterNewline(s string) (string, bool) {
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		return "", false
	}
	return s[i+1:], true
}

// lineIndent is the white space that starts the line holding offset off.
func (d *Doc) lineIndent(off int) string {
	start := bytes.LastIndexByte(d.orig[:off], '\n') + 1
	end := start
	for end < off && (d.orig[end] == ' ' || d.orig[end] == '\t') {
		end++
	}
	return string(d.orig[start:end])
}

// hooksEdited is the hooks object as read, with ag's edits.
func (d *Doc) hooksEdited() string {
	h := d.hooks
	var final []piece
	for _, ev := range h.events {
		switch {
		case ev.idx < 0:
			var b bytes.Buffer
			ev.writeGroups(&b)
			final = append(final, piece{idx: -1, key: ev.name, text: b.String()})
		case !ev.changed:
			final = append(final, piece{idx: ev.idx})
		default:
			final = append(final, piece{idx: ev.idx,
				text: string(d.orig[ev.at.start:ev.val.start]) + d.eventEdited(ev)})
		}
	}
	return d.editList(h.val, h.orig, final)
}

// eventEdited is an event's array as read, with ag's edits.
func (d *Doc) eventEdited(ev *eventList) string {
	var final []piece
	for _, g := range ev.groups {
		switch {
		case g.idx < 0:
			var b bytes.Buffer
			g.write(&b)
			final = append(final, piece{idx: -1, text: b.String()})
		case !g.changed:
			final = append(final, piece{idx: g.idx})
		default:
			var hs []piece
			for _, h := range g.handlers {
				if h.idx < 0 {
					hs = append(hs, piece{idx: -1, text: string(h.raw)})
				} else {
					hs = append(hs, piece{idx: h.idx})
				}
			}
			text := string(d.orig[g.at.start:g.hooksVal.start]) + d.editList(g.hooksVal, g.orig, hs) +
				string(d.orig[g.hooksVal.end:g.at.end])
			final = append(final, piece{idx: g.idx, text: text})
		}
	}
	return d.editList(ev.val, ev.orig, final)
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
		ev.writeGroups(b)
	}
	b.WriteByte('}')
}

func (ev *eventList) writeGroups(b *bytes.Buffer) {
	if ev.setting != nil {
		writeRaw(b, ev.setting)
		return
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

// canonical is the document's meaning as compact JSON, members in order,
// with empty event lists and an empty (or null) hooks object counted as
// absent: two files that differ only in layout, or in an emptied "hooks",
// have the same.
func (d *Doc) canonical() string {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, m := range d.members {
		var val bytes.Buffer
		if m.raw == nil {
			if d.hooks == nil {
				continue
			}
			k := 0
			val.WriteByte('{')
			for _, ev := range d.hooks.events {
				if len(ev.groups) == 0 && ev.setting == nil {
					continue
				}
				if k > 0 {
					val.WriteByte(',')
				}
				k++
				writeKey(&val, ev.name)
				ev.writeGroups(&val)
			}
			val.WriteByte('}')
			if k == 0 {
				continue
			}
		} else {
			writeRaw(&val, m.raw)
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		writeKey(&b, m.key)
		b.Write(val.Bytes())
	}
	b.WriteByte('}')
	return b.String()
}

// describe is a handler's command line for messages.
func (h *handler) describe() string {
	if len(h.args) > 0 {
		return h.command + " " + strings.Join(h.args, " ")
	}
	return h.command
}
