// Package flathooks edits hooks files whose events hold their handlers
// directly, with no matcher groups between (hookjson is Claude's schema):
//
//	Copilot CLI  {"hooks": {"preToolUse": [{"type": "command", "bash": "…", "timeoutSec": 10}]}}
//	Cursor       {"version": 1, "hooks": {"preToolUse": [{"command": "…"}]}}
//
// Only the "hooks" member is rewritten (hookjson.ReplaceMember keeps every
// other byte of the file, comments too where the agent reads them); inside
// it every event, and every handler that is not ag's, is kept as read and
// in order (comments in it are not). A file that is not JSON, or whose
// hooks are not that shape, is refused and left alone.
package flathooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"

	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/internal/hookjson"
	"github.com/agwatch/ag/providers/provider"
)

// Spec is what one agent's install looks like.
type Spec struct {
	Events []string
	// Want is the handler install writes for an event, as JSON members in
	// the order written.
	Want func(event string) []hookjson.Member
	// Command names the member that holds the command line ("bash",
	// "command"), which Owns reads.
	Command string
	// Owns says whether a handler's command line is ag's for that event
	// (another directory's ag-hook, an older install, still is).
	Owns func(command, event string) bool
	// Comments: the agent reads the file with // and /* */ comments
	// (Copilot CLI's settings.json).
	Comments bool
	// Defaults are the members install writes at the top of a file that
	// lacks them (Cursor's "version"). A file with no backup that holds
	// nothing else once ag's hooks are out was made by ag's install: an
	// uninstall removes it.
	Defaults []hookjson.Member
}

// format is how the file is read: hooks whole, comments as the agent
// allows.
func (s *Spec) format() hookjson.Format { return hookjson.Format{Comments: s.Comments, Flat: true} }

// handler is one entry of an event's list, as read.
type handler struct {
	raw     json.RawMessage
	command string
	typ     string
}

type eventList struct {
	name     string
	raw      json.RawMessage // as read; nil once changed
	handlers []handler
}

type doc struct{ events []*eventList }

// ShapeError is a hooks member that is not an object of handler lists.
type ShapeError struct{ Msg string }

func (e *ShapeError) Error() string { return e.Msg }

func shapef(format string, a ...any) error { return &ShapeError{fmt.Sprintf(format, a...)} }

// parse reads a "hooks" value (nil: none yet).
func parse(raw json.RawMessage, s *Spec) (*doc, error) {
	d := &doc{}
	if raw == nil || string(bytes.TrimSpace(raw)) == "null" {
		return d, nil
	}
	members, err := hookjson.Members(raw)
	if err != nil {
		return nil, shapef(`"hooks" is not an object`)
	}
	seen := map[string]bool{}
	for _, m := range members {
		if seen[m.Key] {
			return nil, shapef(`"hooks" has %q twice`, m.Key)
		}
		seen[m.Key] = true
		ev := &eventList{name: m.Key, raw: m.Raw}
		var list []json.RawMessage
		if err := json.Unmarshal(m.Raw, &list); err != nil {
			return nil, shapef("hooks.%s is not an array", m.Key)
		}
		for i, hraw := range list {
			hms, err := hookjson.Members(hraw)
			if err != nil {
				return nil, shapef("hooks.%s[%d] is not an object", m.Key, i)
			}
			h := handler{raw: hraw}
			for _, hm := range hms {
				switch hm.Key {
				case s.Command:
					json.Unmarshal(hm.Raw, &h.command) // not a string: not ours
				case "type":
					json.Unmarshal(hm.Raw, &h.typ)
				}
			}
			ev.handlers = append(ev.handlers, h)
		}
		d.events = append(d.events, ev)
	}
	return d, nil
}

func (s *Spec) owns(h handler, event string) bool {
	return (h.typ == "" || h.typ == "command") && h.command != "" && s.Owns(h.command, event)
}

// want is the handler install writes for event, compact.
func (s *Spec) want(event string) json.RawMessage { return hookjson.Object(s.Want(event)) }

// exact reports whether h is byte for byte (outside white space) what
// install writes; anything else of ours was hand-edited or is stale.
func (s *Spec) exact(h handler, event string) bool {
	var b bytes.Buffer
	if json.Compact(&b, h.raw) != nil {
		return false
	}
	return bytes.Equal(b.Bytes(), s.want(event))
}

func (d *doc) event(name string) *eventList {
	for _, ev := range d.events {
		if ev.name == name {
			return ev
		}
	}
	return nil
}

// status reads the document: NotInstalled when no handler is ours,
// Installed when every event has exactly the handler install writes and
// nothing else of ours is there, else NeedsRepair with the reasons.
func (d *doc) status(s *Spec) (provider.InstallState, []string) {
	ours := false
	for _, ev := range d.events {
		for _, h := range ev.handlers {
			ours = ours || s.owns(h, ev.name)
		}
	}
	if !ours {
		return provider.NotInstalled, nil
	}
	var why []string
	for _, name := range s.Events {
		ev := d.event(name)
		var ours []handler
		if ev != nil {
			for _, h := range ev.handlers {
				if s.owns(h, name) {
					ours = append(ours, h)
				}
			}
		}
		switch {
		case len(ours) == 0:
			why = append(why, name+": missing")
		case len(ours) > 1:
			why = append(why, fmt.Sprintf("%s: %d handlers (duplicates)", name, len(ours)))
		case ours[0].command != s.command(name):
			why = append(why, fmt.Sprintf("%s: runs %s, want %s", name, ours[0].command, s.command(name)))
		case !s.exact(ours[0], name):
			why = append(why, name+": hand-edited")
		}
	}
	for _, ev := range d.events {
		if slices.Contains(s.Events, ev.name) {
			continue
		}
		for _, h := range ev.handlers {
			if s.owns(h, ev.name) {
				why = append(why, ev.name+": not an event ag hooks")
				break
			}
		}
	}
	if len(why) > 0 {
		return provider.NeedsRepair, why
	}
	return provider.Installed, nil
}

// command is the command line install writes for event.
func (s *Spec) command(event string) string {
	for _, m := range s.Want(event) {
		if m.Key == s.Command {
			var c string
			json.Unmarshal(m.Raw, &c)
			return c
		}
	}
	return ""
}

// install keeps the first exact handler of each event, drops every other
// one of ours and appends the missing ones at the end of their event.
func (d *doc) install(s *Spec) []string {
	if st, _ := d.status(s); st == provider.Installed {
		return nil
	}
	kept := map[string]bool{}
	actions := d.remove(s, func(h handler, event string) bool {
		if slices.Contains(s.Events, event) && !kept[event] && s.exact(h, event) {
			kept[event] = true
			return false
		}
		return true
	})
	for _, name := range s.Events {
		if kept[name] {
			continue
		}
		ev := d.event(name)
		if ev == nil {
			ev = &eventList{name: name}
			d.events = append(d.events, ev)
		}
		ev.handlers = append(ev.handlers, handler{raw: s.want(name), command: s.command(name), typ: "command"})
		ev.raw = nil
		actions = append(actions, fmt.Sprintf("+ %s: %s", name, s.command(name)))
	}
	return actions
}

// remove drops the handlers of ours that drop says to, and an event list
// that this left empty (never one that was empty before).
func (d *doc) remove(s *Spec, drop func(h handler, event string) bool) []string {
	var actions []string
	events := d.events[:0]
	for _, ev := range d.events {
		hs := ev.handlers[:0]
		removed := false
		for _, h := range ev.handlers {
			if s.owns(h, ev.name) && drop(h, ev.name) {
				actions = append(actions, fmt.Sprintf("- %s: %s", ev.name, h.command))
				removed = true
				continue
			}
			hs = append(hs, h)
		}
		ev.handlers = hs
		if removed {
			ev.raw = nil
			if len(hs) == 0 {
				continue
			}
		}
		events = append(events, ev)
	}
	d.events = events
	return actions
}

// value is the hooks object as JSON; nil when uninstall emptied it.
func (d *doc) value() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, ev := range d.events {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(hookjson.String(ev.name))
		b.WriteByte(':')
		if ev.raw != nil {
			b.Write(ev.raw)
			continue
		}
		b.WriteByte('[')
		for j, h := range ev.handlers {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(h.raw)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Install makes the file at path hold exactly the spec's handlers. When it
// changes the file, each of first's members the file lacks is added too
// (Cursor's "version", which its file must have); one it has is kept.
func Install(ie provider.InstallEnv, path string, s *Spec, first ...hookjson.Member) (provider.InstallResult, error) {
	return edit(ie, path, s, first, (*doc).install)
}

// Uninstall removes every handler of ours from the file at path; a hooks
// member left empty goes too.
func Uninstall(ie provider.InstallEnv, path string, s *Spec) (provider.InstallResult, error) {
	return edit(ie, path, s, nil, func(d *doc, s *Spec) []string {
		return d.remove(s, func(handler, string) bool { return true })
	})
}

// Status reads the file at path as it is on disk.
func Status(path string, s *Spec) (provider.InstallStatus, error) {
	st := provider.InstallStatus{Path: path}
	raw, err := s.format().ReadMember(path, "hooks")
	if err != nil {
		return st, err
	}
	d, err := parse(raw, s)
	if err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	st.State, st.Reasons = d.status(s)
	return st, nil
}

func edit(ie provider.InstallEnv, path string, s *Spec, first []hookjson.Member, change func(*doc, *Spec) []string) (provider.InstallResult, error) {
	return ie.Edit(func(tx *configtx.Tx) (provider.InstallResult, error) {
		in := ie
		in.Tx = tx
		res := provider.InstallResult{Path: path}
		_, exists, err := tx.Read(path)
		if err != nil {
			return res, err
		}
		// Read the hooks through the loader that writes them (so a file
		// that does not parse is refused the same way), staging nothing.
		var d *doc
		if _, err := s.format().ReplaceMember(in, path, "hooks", func(old json.RawMessage) (json.RawMessage, []string, error) {
			var err error
			d, err = parse(old, s)
			return old, nil, err
		}); err != nil {
			return res, err
		}
		if st, _ := d.status(s); exists && st == provider.NotInstalled {
			// Nothing of ag's in it yet: the user's own file.
			if err := tx.Original(path); err != nil {
				return res, err
			}
		}
		actions := change(d, s)
		if len(actions) == 0 {
			return res, nil
		}
		for _, m := range first {
			r, err := s.format().ReplaceMember(in, path, m.Key, func(old json.RawMessage) (json.RawMessage, []string, error) {
				if old != nil {
					return old, nil, nil
				}
				return m.Raw, []string{fmt.Sprintf("~ %s: %s", m.Key, m.Raw)}, nil
			})
			if err != nil {
				return res, err
			}
			res.Actions = append(res.Actions, r.Actions...)
		}
		var val json.RawMessage
		if len(d.events) > 0 {
			val = d.value()
		}
		r, err := s.format().ReplaceMember(in, path, "hooks", func(json.RawMessage) (json.RawMessage, []string, error) {
			return val, actions, nil
		})
		if err != nil {
			return res, err
		}
		if len(first) == 0 {
			// An uninstall that leaves what the file meant before ag:
			// the user's own bytes back, their layout with them.
			if err := original(tx, path, s.format()); err != nil {
				return res, err
			}
			if mine, err := madeByAg(tx, path, s); err != nil || mine {
				r.Actions = append(r.Actions, "~ "+path+": removed (ag's install had made it)")
				res.Actions, res.Changed = append(res.Actions, r.Actions...), true
				return res, err
			}
		}
		res.Actions, res.Changed = append(res.Actions, r.Actions...), true
		return res, nil
	})
}

// madeByAg stages path's removal when ag's install made it: there is no
// backup (no file was there before ag) and, ag's hooks out, it holds
// nothing but the spec's defaults.
func madeByAg(tx *configtx.Tx, path string, s *Spec) (bool, error) {
	if _, err := os.Lstat(path + configtx.BackupSuffix); err == nil {
		return false, nil
	}
	now, exists, err := tx.Read(path)
	if err != nil || !exists {
		return false, err
	}
	plain, err := s.format().Plain(now)
	if err != nil {
		return false, nil
	}
	var left map[string]json.RawMessage
	if json.Unmarshal(plain, &left) != nil {
		return false, nil
	}
	for k, v := range left {
		i := slices.IndexFunc(s.Defaults, func(m hookjson.Member) bool { return m.Key == k })
		if i < 0 || !sameMeaning(hookjson.Format{}, v, s.Defaults[i].Raw) {
			return false, nil
		}
	}
	if err := tx.Ours(path); err != nil {
		return false, err
	}
	return true, tx.Remove(path)
}

// original stages the backup's bytes for path when they mean what the
// staged file means (ag's edits re-indent the hooks they touch).
func original(tx *configtx.Tx, path string, f hookjson.Format) error {
	backup, err := os.ReadFile(path + configtx.BackupSuffix)
	if err != nil {
		return nil // no backup: the file was ag's own
	}
	now, _, err := tx.Read(path)
	if err != nil {
		return err
	}
	if !sameMeaning(f, backup, now) {
		return nil
	}
	return tx.Write(path, backup)
}

// sameMeaning says whether two files hold the same JSON (comments aside).
func sameMeaning(f hookjson.Format, x, y []byte) bool {
	px, err := f.Plain(x)
	if err != nil {
		return false
	}
	py, err := f.Plain(y)
	if err != nil {
		return false
	}
	var a, b any
	return json.Unmarshal(px, &a) == nil && json.Unmarshal(py, &b) == nil && reflect.DeepEqual(a, b)
}
