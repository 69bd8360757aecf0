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
	ids   map[string]bool
}

type procRule struct {
	id string
	r  provider.ProcRules
}

func newRules(all []provider.Provider) *rules {
	r := &rules{panes: map[string]*panes.Rules{}, ids: map[string]bool{}}
	for _, p := range all {
		r.ids[p.ID()] = true
		if d, ok := p.(provider.ProcDetector); ok {
			r.procs = append(r.procs, procRule{p.ID(), d.ProcRules()})
		}
		if d, ok := p.(provider.PaneDetector); ok {
			pr := d.PaneRules()
			r.panes[p.ID()] = &pr
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
