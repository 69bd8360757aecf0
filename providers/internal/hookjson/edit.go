package hookjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/agwatch/ag/providers/provider"
)

// Entry is one event ag hooks, with the matcher its group carries ("" for
// none: the event matches everything or takes no matcher).
type Entry struct {
	Event   string
	Matcher string
}

// Spec is what an agent's install looks like.
type Spec struct {
	Entries []Entry
	Command string // the command string every handler runs
	Timeout int    // seconds; 0 writes no timeout
	// Owns says whether a handler's command line (command, plus args in
	// exec form) is ag's: it runs ag-hook with this agent's name.
	Owns func(command string, args []string) bool
	// Format is what else the file may hold (comments, hook settings).
	Format Format
}

// OwnedBy is the usual ownership test: the command is exactly
// `<dir>/<exe> <agent>` (any dir, any quoting), so an install from an old
// path is still recognised as ours.
func OwnedBy(exe, agent string) func(string, []string) bool {
	return func(command string, args []string) bool {
		words := Words(command)
		if len(args) > 0 {
			words = append([]string{command}, args...)
		}
		return len(words) == 2 && filepath.Base(words[0]) == exe && words[1] == agent
	}
}

func (s *Spec) owns(h *handler) bool { return h.typ == "command" && s.Owns(h.command, h.args) }

// want is the handler install writes, as JSON.
func (s *Spec) want() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"command","command":`)
	writeString(&b, s.Command)
	if s.Timeout > 0 {
		b.WriteString(`,"timeout":` + strconv.Itoa(s.Timeout))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// exact reports whether h is what install would write: same type, command
// and timeout, nothing else (an extra member means it was hand-edited).
func (s *Spec) exact(h *handler) bool {
	keys := []string{"type", "command"}
	if s.Timeout > 0 {
		keys = append(keys, "timeout")
		if string(bytes.TrimSpace(h.timeout)) != strconv.Itoa(s.Timeout) {
			return false
		}
	}
	sorted := slices.Clone(h.keys)
	slices.Sort(sorted)
	slices.Sort(keys)
	return h.typ == "command" && h.command == s.Command && slices.Equal(sorted, keys)
}

type owned struct {
	ev *eventList
	g  *group
	h  *handler
}

func (d *Doc) owned(s *Spec) []owned {
	if d.hooks == nil {
		return nil
	}
	var out []owned
	for _, ev := range d.hooks.events {
		for _, g := range ev.groups {
			for _, h := range g.handlers {
				if s.owns(h) {
					out = append(out, owned{ev, g, h})
				}
			}
		}
	}
	return out
}

func matcherOf(g *group) string {
	if g.matcher == nil {
		return ""
	}
	return *g.matcher
}

// Status reads the document: NotInstalled when no handler is ours,
// Installed when every entry has exactly the handler install writes and
// nothing else of ours is there, else NeedsRepair with the reasons.
func (d *Doc) Status(s *Spec) (provider.InstallState, []string) {
	all := d.owned(s)
	if len(all) == 0 {
		return provider.NotInstalled, nil
	}
	var why []string
	wanted := map[string]bool{}
	for _, e := range s.Entries {
		wanted[e.Event] = true
		var here []owned
		for _, o := range all {
			if o.ev.name == e.Event {
				here = append(here, o)
			}
		}
		switch {
		case len(here) == 0:
			why = append(why, e.Event+": missing")
		case len(here) > 1:
			why = append(why, fmt.Sprintf("%s: %d handlers (duplicates)", e.Event, len(here)))
		default:
			o := here[0]
			if m := matcherOf(o.g); m != e.Matcher {
				why = append(why, fmt.Sprintf("%s: matcher %q, want %q", e.Event, m, e.Matcher))
			}
			if !s.exact(o.h) {
				why = append(why, e.Event+": "+s.differs(o.h))
			}
		}
	}
	for _, o := range all {
		if !wanted[o.ev.name] {
			why = append(why, o.ev.name+": not an event ag hooks")
		}
	}
	if len(why) > 0 {
		return provider.NeedsRepair, why
	}
	return provider.Installed, nil
}

// differs says how an owned handler differs from the wanted one.
func (s *Spec) differs(h *handler) string {
	if h.command != s.Command || len(h.args) > 0 {
		words := Words(h.command)
		if len(h.args) > 0 {
			words = []string{h.command}
		}
		if len(words) > 0 && words[0] != "" {
			if fi, err := os.Stat(words[0]); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
				return fmt.Sprintf("runs %s (missing), want %s", h.describe(), s.Command)
			}
		}
		return fmt.Sprintf("runs %s, want %s", h.describe(), s.Command)
	}
	return "hand-edited"
}

// Install makes the document hold exactly the spec's handlers: correct
// ones stay where they are, other handlers of ours go, missing ones are
// added as a new group at the end of their event. It returns one line per
// change; none means the document was already installed.
func (d *Doc) Install(s *Spec) []string {
	if st, _ := d.Status(s); st == provider.Installed {
		return nil
	}
	if d.hooks == nil {
		d.hooks = &hooksObj{}
		d.members = append(d.members, member{key: "hooks"})
	}
	wanted := map[string]Entry{}
	for _, e := range s.Entries {
		wanted[e.Event] = e
	}
	// Keep the first correct handler of each wanted event; everything
	// else of ours (duplicates, stale paths, old events) goes.
	keep := map[*handler]bool{}
	kept := map[string]bool{}
	for _, o := range d.owned(s) {
		e, ok := wanted[o.ev.name]
		if ok && !kept[e.Event] && matcherOf(o.g) == e.Matcher && s.exact(o.h) {
			keep[o.h] = true
			kept[e.Event] = true
		}
	}
	actions := d.remove(s, func(h *handler) bool { return !keep[h] })
	for _, e := range s.Entries {
		if kept[e.Event] {
			continue
		}
		ev := d.hooks.event(e.Event)
		g := &group{idx: -1}
		if e.Matcher != "" {
			m := e.Matcher
			g.matcher = &m
			raw, _ := json.Marshal(m)
			g.members = append(g.members, member{key: "matcher", raw: raw})
		}
		g.members = append(g.members, member{key: "hooks"})
		g.handlers = []*handler{{raw: s.want(), typ: "command", command: s.Command, idx: -1}}
		ev.groups = append(ev.groups, g)
		ev.changed = true
		actions = append(actions, fmt.Sprintf("+ %s: %s", e.Event, s.Command))
	}
	d.dirty = d.dirty || len(actions) > 0
	return actions
}

// Uninstall removes every handler of ours.
func (d *Doc) Uninstall(s *Spec) []string {
	actions := d.remove(s, func(*handler) bool { return true })
	if len(actions) > 0 && len(d.hooks.events) == 0 {
		d.dropHooks()
	}
	return actions
}

// remove drops the owned handlers drop says to, then any group and event
// list that this left empty (never one that was empty before).
func (d *Doc) remove(s *Spec, drop func(*handler) bool) []string {
	if d.hooks == nil {
		return nil
	}
	var actions []string
	events := d.hooks.events[:0]
	for _, ev := range d.hooks.events {
		changed := false
		groups := ev.groups[:0]
		for _, g := range ev.groups {
			hs := g.handlers[:0]
			removed := false
			for _, h := range g.handlers {
				if s.owns(h) && drop(h) {
					actions = append(actions, fmt.Sprintf("- %s: %s", ev.name, h.describe()))
					removed = true
					continue
				}
				hs = append(hs, h)
			}
			g.handlers = hs
			if removed {
				changed, g.changed = true, true
				if len(hs) == 0 {
					continue
				}
			}
			groups = append(groups, g)
		}
		ev.groups = groups
		if changed {
			ev.changed = true
			if len(groups) == 0 {
				continue
			}
		}
		events = append(events, ev)
	}
	d.hooks.events = events
	d.dirty = d.dirty || len(actions) > 0
	return actions
}

func (d *Doc) dropHooks() {
	d.hooks = nil
	d.members = slices.DeleteFunc(d.members, func(m member) bool { return m.raw == nil })
}

func (h *hooksObj) event(name string) *eventList {
	for _, ev := range h.events {
		if ev.name == name {
			return ev
		}
	}
	ev := &eventList{name: name, idx: -1}
	h.events = append(h.events, ev)
	return ev
}
