package agentdef

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/agentdef/builtin"
	"github.com/agwatch/ag/providers/provider"
)

// Set is every definition that loaded: the agents they define (built in
// first, by id, then the user's own, by id), the Go agents' screens a
// user's file replaces, and every file refused, with why.
type Set struct {
	Agents  []*Agent
	Screens map[string]GoScreen
	Errors  []error
}

// Load reads the built-in definitions and the user's (paths.AgentsDir).
// goAgents are the agents written in Go: a file with one of their ids,
// built in or the user's, gives that agent its [screen] (and nothing
// else), the user's before the built-in one, either before the Go
// package's own rules. A file that is refused is left out, and the
// built-in definition it would override stands.
func Load(env paths.Env, goAgents []provider.Provider) *Set {
	return load(env, goAgents, builtin.IDs(), builtin.Read)
}

func load(env paths.Env, goAgents []provider.Provider, ids []string, read func(id string) ([]byte, bool)) *Set {
	s := &Set{Screens: map[string]GoScreen{}}
	byID := map[string]*Agent{}
	builtins := map[string]*File{}
	gos := map[string]provider.Provider{}
	for _, p := range goAgents {
		gos[p.ID()] = p
	}
	for _, id := range ids {
		name := builtin.Name(id)
		data, _ := read(id)
		if gos[id] != nil {
			// A Go agent whose screen rules are data.
			rules, err := goScreen(name, data, gos[id])
			if err != nil {
				s.Errors = append(s.Errors, unjoin(err)...)
				continue
			}
			s.Screens[id] = GoScreen{Rules: rules, Source: "built in (" + name + ")"}
			continue
		}
		f, a, err := compileFile(name, data, nil)
		if err != nil {
			s.Errors = append(s.Errors, unjoin(err)...)
			continue
		}
		a.source = "built in (" + name + ")"
		builtins[a.id], byID[a.id] = f, a
		s.Agents = append(s.Agents, a)
	}
	dir := paths.AgentsDir(env)
	files, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.Errors = append(s.Errors, unjoin(err)...)
	}
	for _, e := range files {
		name := e.Name()
		if !strings.HasSuffix(name, ".toml") || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		data, err := readSmall(path)
		if err != nil {
			s.Errors = append(s.Errors, &Error{File: path, Msg: err.Error()})
			continue
		}
		id := strings.TrimSuffix(name, ".toml")
		switch {
		case gos[id] != nil:
			rules, err := goScreen(path, data, gos[id])
			if err != nil {
				s.Errors = append(s.Errors, unjoin(err)...)
				continue
			}
			s.Screens[id] = GoScreen{Rules: rules, Source: path + " (its screen rules)"}
		case builtins[id] != nil:
			_, a, err := compileFile(path, data, builtins[id])
			if err != nil {
				s.Errors = append(s.Errors, unjoin(err)...)
				continue
			}
			a.source = path + " over the built-in definition"
			*byID[id] = *a
		default:
			_, a, err := compileFile(path, data, nil)
			if err != nil {
				s.Errors = append(s.Errors, unjoin(err)...)
				continue
			}
			a.source = path
			s.Agents = append(s.Agents, a)
		}
	}
	return s
}

// readSmall reads a regular file of at most MaxSize bytes: a FIFO or a
// device named like a definition must not hang a program's start.
func readSmall(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, errors.New("not a regular file, skipped")
	case fi.Size() > MaxSize:
		return nil, errors.New("longer than 64 KB, skipped")
	}
	return os.ReadFile(path)
}

// Check reads one definition as Load would read it from the user's
// folder: the errors it would be refused with (ag-detect --check-agents).
func Check(path string, data []byte, goAgents []provider.Provider) []error {
	id := strings.TrimSuffix(filepath.Base(path), ".toml")
	for _, p := range goAgents {
		if p.ID() == id {
			_, err := goScreen(path, data, p)
			return unjoin(err)
		}
	}
	var base *File
	if d, ok := builtin.Read(id); ok {
		base, _, _ = compileFile(builtin.Name(id), d, nil)
	}
	_, _, err := compileFile(path, data, base)
	return unjoin(err)
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// compileFile parses and compiles one file; over, when set, is the
// built-in definition it overrides section by section.
func compileFile(file string, data []byte, over *File) (*File, *Agent, error) {
	f, l, err := parse(file, data)
	if err != nil {
		return nil, nil, err
	}
	c := &checker{file: file, lines: l}
	stem := strings.TrimSuffix(filepath.Base(file), ".toml")
	switch {
	case !syntax().id.MatchString(f.ID):
		c.fail("id", "%q: an agent id is lower-case letters, digits, - and _, starting with a letter", f.ID)
	case f.ID != stem:
		c.fail("id", "%q, but the file is %s.toml: name the file after the id", f.ID, stem)
	}
	if over != nil {
		// A section the user's file gives replaces the built-in one whole.
		m := *over
		if f.Name != "" {
			m.Name = f.Name
		}
		if f.Checked != "" {
			m.Checked = f.Checked
		}
		for _, sec := range []struct {
			given bool
			set   func()
		}{
			{f.Process != nil, func() { m.Process = f.Process }},
			{f.Screen != nil, func() { m.Screen = f.Screen }},
			{f.Keys != nil, func() { m.Keys = f.Keys }},
			{f.Commands != nil, func() { m.Commands = f.Commands }},
			{f.Hooks != nil, func() { m.Hooks = f.Hooks }},
		} {
			if sec.given {
				sec.set()
			}
		}
		f = &m
	}
	if f.Name == "" {
		c.fail("name", "missing: the agent's name for people (\"Continue CLI\")")
	}
	a := &Agent{id: f.ID, name: f.Name, checked: f.Checked}
	if f.Process == nil {
		c.fail("process", "missing: without [process] ag never finds the agent")
	} else {
		a.proc = c.process(f.Process)
	}
	if f.Hooks != nil {
		c.hooks(f.Hooks, f.ID)
		a.hooks = f.Hooks
	}
	states := map[string]panes.State{}
	if f.Screen != nil {
		if f.Screen.Turns == nil && f.Hooks != nil {
			f.Screen.Turns = new(bool) // its hooks say when turns start and end
		}
		a.screen = c.screen(f.Screen)
		for _, st := range a.screen.States {
			states[st.Name] = st
		}
		for _, t := range a.screen.Titles {
			states[t.Name] = panes.State{Name: t.Name, Kind: t.Kind, Attention: t.Attention}
		}
	}
	if f.Keys != nil {
		a.keys = c.keys(f.Keys, states)
	}
	if f.Commands != nil {
		a.cmds = c.commands(f.Commands)
	}
	if len(c.errs) > 0 {
		return nil, nil, errors.Join(c.errs...)
	}
	return f, a, nil
}

// goScreen compiles a user's file that replaces the screen rules of an
// agent written in Go: [screen] only, and it must keep every screen
// state the agent's key map names.
func goScreen(file string, data []byte, p provider.Provider) (panes.Rules, error) {
	f, l, err := parse(file, data)
	if err != nil {
		return panes.Rules{}, err
	}
	c := &checker{file: file, lines: l}
	if f.ID != p.ID() {
		c.fail("id", "%q, but the file is %s.toml: name the file after the id", f.ID, p.ID())
	}
	for _, k := range []string{"process", "keys", "commands", "hooks", "screen.turns"} {
		if l.has(k) {
			c.fail(k, "%s is one of ag's own agents: a definition can replace its [screen] only (and not screen.turns: its hooks say when turns end)", p.ID())
		}
	}
	if f.Screen == nil {
		c.fail("screen", "missing: a file named after %s replaces its screen rules", p.ID())
		return panes.Rules{}, errors.Join(c.errs...)
	}
	f.Screen.Turns = new(bool)
	rules := c.screen(f.Screen)
	if k, ok := p.(provider.Keyed); ok {
		km := k.Keys()
		var names []string
		for n := range km.Screens {
			names = append(names, n)
		}
		names = append(names, km.Fields...)
		names = append(names, km.Input...)
		names = append(names, km.Unsent...)
		for n := range km.NoReply {
			names = append(names, n)
		}
		if km.SubDenyThen != "" {
			names = append(names, km.SubDenyThen)
		}
		slices.Sort(names)
		for _, n := range slices.Compact(names) {
			if !slices.ContainsFunc(rules.States, func(s panes.State) bool { return s.Name == n }) {
				c.fail("screen", "no state %q: %s's keys depend on it", n, p.ID())
			}
		}
	}
	if len(c.errs) > 0 {
		return panes.Rules{}, errors.Join(c.errs...)
	}
	return rules, nil
}
