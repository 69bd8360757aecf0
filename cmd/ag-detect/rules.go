package main

import (
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/proc"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

// rules are every provider's detection data, gathered once per run.
type rules struct {
	procs []procRule
	panes map[string]*panes.Rules
	keys  map[string]provider.KeyMap // what picks a question's option by label
	ids   map[string]bool
	byID  map[string]provider.Provider
	// unread are the agents ag names but reads nothing of
	// (providers.Unread): their proc.up says so.
	unread map[string]bool
}

type procRule struct {
	id string
	r  provider.ProcRules
}

func newRules(all []provider.Provider) *rules {
	r := &rules{panes: map[string]*panes.Rules{}, keys: map[string]provider.KeyMap{}, ids: map[string]bool{}, byID: map[string]provider.Provider{}, unread: map[string]bool{}}
	for _, p := range all {
		r.ids[p.ID()] = true
		r.unread[p.ID()] = providers.Unread(p)
		r.byID[p.ID()] = p
		if d, ok := p.(provider.ProcDetector); ok {
			r.procs = append(r.procs, procRule{p.ID(), d.ProcRules()})
		}
		if pr, ok := providers.PaneRules(p); ok {
			r.panes[p.ID()] = &pr
		}
		if k, ok := p.(provider.Keyed); ok {
			r.keys[p.ID()] = k.Keys()
		}
	}
	return r
}

func defaultRules() *rules { return newRules(providers.All()) }

// match is proc.Match over the providers, in their order: first match wins.
func (r *rules) match(exe string, argv []string) (string, bool) {
	for _, p := range r.procs {
		if m := p.r.Match(exe, argv); m.OK {
			return p.id, m.Launcher
		}
	}
	return "", false
}

// session is the session the agent's command line names, if its provider
// can tell ("" otherwise).
func (r *rules) session(agent string, argv []string) string {
	for _, p := range r.procs {
		if p.id == agent && p.r.Session != nil {
			return p.r.Session(argv)
		}
	}
	return ""
}

// viewer is the job and session a process that shows a session running
// elsewhere names (`claude attach <job>`), if its provider can tell. The
// process's environment (env) is read only if the provider asks.
func (r *rules) viewer(agent string, argv []string, env func() []string) (job, session string) {
	for _, p := range r.procs {
		if p.id == agent && p.r.Viewer != nil {
			var vars []string
			read := false
			return p.r.Viewer(argv, func(k string) string {
				if !read {
					vars, read = env(), true
				}
				v, _ := proc.Getenv(vars, k)
				return v
			})
		}
	}
	return "", ""
}

// why says what made found its agent, for the proc events' why and
// --explain: how the process was reached and the rule it met.
func (r *rules) why(found proc.Found) string {
	if found.Via == "hint" {
		return clampWhy("hint: " + provider.HintVar + "=" + found.Agent + " in the environment of " + found.Argv0())
	}
	for _, p := range r.procs {
		if p.id == found.Agent {
			if w := p.r.Why(found.Exe, found.Argv); w != "" {
				return clampWhy(found.Via + ": " + w)
			}
		}
	}
	return found.Via
}

// names are the lower-cased basenames a process goes by: its executable's
// and argv[0]'s (a login shell's "-bash" counts as bash).
func names(exe string, argv []string) []string {
	var out []string
	if exe != "" {
		out = append(out, strings.ToLower(filepath.Base(exe)))
	}
	if len(argv) > 0 && argv[0] != "" {
		out = append(out, strings.TrimPrefix(strings.ToLower(filepath.Base(argv[0])), "-"))
	}
	return out
}

func anyOf(ns []string, list []string) bool {
	for _, n := range ns {
		for _, l := range list {
			if n == l {
				return true
			}
		}
	}
	return false
}

func (r *rules) shell(exe string, argv []string) bool {
	return anyOf(names(exe, argv), provider.Shells())
}

func (r *rules) lookThrough(exe string, argv []string) bool {
	ns := names(exe, argv)
	return anyOf(ns, provider.Shells()) || anyOf(ns, provider.Wrappers())
}

func (r *rules) hint(v string) string {
	if r.ids[v] {
		return v
	}
	return ""
}

func (r *rules) finder(t *proc.Table, info proc.Info) *proc.Finder {
	return &proc.Finder{
		Table: t, Info: info, Match: r.match,
		LookThrough: r.lookThrough, Shell: r.shell,
		HintVar: provider.HintVar, Hint: r.hint,
	}
}
