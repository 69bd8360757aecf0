package hookjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/provider"
)

// Top-level members other than "hooks" (Claude's "statusLine") are edited
// as text: the one member's value is replaced, added or dropped, and every
// other byte of the file stays as it was.

// Member is one "key": value pair of an object, the value as read.
type Member struct {
	Key string
	Raw json.RawMessage
}

// Members splits a JSON object into its members, in order.
func Members(raw json.RawMessage) ([]Member, error) {
	ms, err := objectMembers(raw)
	if err != nil {
		return nil, err
	}
	out := make([]Member, len(ms))
	for i, m := range ms {
		out[i] = Member{m.key, m.raw}
	}
	return out, nil
}

// Object writes members back as one compact JSON object.
func Object(members []Member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		writeKey(&b, m.Key)
		writeRaw(&b, m.Raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// String is s as a JSON string (no HTML escaping: commands hold & and <).
func String(s string) json.RawMessage {
	var b bytes.Buffer
	writeString(&b, s)
	return b.Bytes()
}

// ReadMember returns the value of the top-level member key of the file at
// path: nil when the file or the member is missing.
func ReadMember(path, key string) (json.RawMessage, error) { return Format{}.ReadMember(path, key) }

// ReadMember is ReadMember for a file in format f.
func (f Format) ReadMember(path, key string) (json.RawMessage, error) {
	d, exists, err := load(configtx.New(), path, f)
	if err != nil || !exists {
		return nil, err
	}
	for _, m := range d.parsed {
		if m.key == key {
			return m.raw, nil
		}
	}
	return nil, nil
}

// EditMember rewrites the top-level member key of the file at path,
// staged in ie's transaction. change gets the current value (nil when
// absent) and returns the new one (nil drops the member) with one line per
// change for people; no lines, no change. An error from change leaves the
// file alone.
func EditMember(ie provider.InstallEnv, path, key string, change func(old json.RawMessage) (json.RawMessage, []string, error)) (provider.InstallResult, error) {
	if key == "hooks" {
		return provider.InstallResult{Path: path}, errors.New(`EditMember: "hooks" is Install's`)
	}
	return ReplaceMember(ie, path, key, change)
}

// ReplaceMember is EditMember for any member, "hooks" included: for a file
// whose hooks are not Claude's schema (Copilot's and Cursor's flat lists),
// which the caller edits itself.
func ReplaceMember(ie provider.InstallEnv, path, key string, change func(old json.RawMessage) (json.RawMessage, []string, error)) (provider.InstallResult, error) {
	return Format{}.ReplaceMember(ie, path, key, change)
}

// ReplaceMember is ReplaceMember for a file in format f. With comments,
// those outside the member keep their bytes; the member's value is written
// without the ones it held.
func (f Format) ReplaceMember(ie provider.InstallEnv, path, key string, change func(old json.RawMessage) (json.RawMessage, []string, error)) (provider.InstallResult, error) {
	return ie.Edit(func(tx *configtx.Tx) (provider.InstallResult, error) {
		res := provider.InstallResult{Path: path}
		d, _, err := load(tx, path, f)
		if err != nil {
			return res, err
		}
		idx := -1
		for i, m := range d.parsed {
			if m.key == key {
				idx = i
			}
		}
		var cur json.RawMessage
		if idx >= 0 {
			cur = d.parsed[idx].raw
		}
		val, actions, err := change(cur)
		if err != nil {
			return res, fmt.Errorf("%s: %w (left unchanged)", path, err)
		}
		if len(actions) == 0 {
			return res, nil
		}
		out, err := d.withMember(idx, key, val)
		if err != nil {
			return res, err
		}
		res.Actions, res.Changed = actions, true
		return res, tx.Write(path, out)
	})
}

// withMember is the file with member idx (-1: none yet) set to val, or
// dropped when val is nil.
func (d *Doc) withMember(idx int, key string, val json.RawMessage) ([]byte, error) {
	var compact bytes.Buffer
	if val != nil {
		if err := json.Compact(&compact, val); err != nil {
			return nil, fmt.Errorf("new %s value: %w", key, err)
		}
	}
	indent := func(prefix string) string {
		if d.indent == "" {
			return compact.String()
		}
		var b bytes.Buffer
		if json.Indent(&b, compact.Bytes(), prefix, d.indent) != nil {
			return compact.String()
		}
		return b.String()
	}
	switch {
	case len(d.parsed) == 0 || (idx >= 0 && val == nil && len(d.parsed) == 1):
		// No members to keep: write the whole (tiny) object.
		var b bytes.Buffer
		b.WriteByte('{')
		if val != nil {
			if d.indent != "" {
				b.WriteString("\n" + d.indent)
			}
			writeKey(&b, key)
			if d.indent != "" {
				b.WriteByte(' ')
			}
			b.WriteString(indent(d.indent))
			if d.indent != "" {
				b.WriteByte('\n')
			}
		}
		b.WriteByte('}')
		if d.newline || d.orig == nil {
			b.WriteByte('\n')
		}
		return b.Bytes(), nil
	case idx >= 0 && val != nil:
		m := d.parsed[idx]
		return d.splice(m.valStart, m.valEnd, indent(d.prefixAt(m.keyStart))), nil
	case idx >= 0: // drop it with the comma before (or after) it
		m := d.parsed[idx]
		if idx > 0 {
			return d.splice(d.parsed[idx-1].valEnd, m.valEnd, ""), nil
		}
		return d.splice(m.keyStart, d.parsed[1].keyStart, ""), nil
	case val != nil: // add it after the last member
		last := d.parsed[len(d.parsed)-1]
		prefix := d.prefixAt(d.parsed[0].keyStart)
		var b bytes.Buffer
		b.WriteByte(',')
		if d.indent != "" {
			b.WriteString("\n" + prefix)
		}
		writeKey(&b, key)
		if d.indent != "" {
			b.WriteByte(' ')
		}
		b.WriteString(indent(prefix))
		return d.splice(last.valEnd, last.valEnd, b.String()), nil
	}
	return d.orig, nil
}
