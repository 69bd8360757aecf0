package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/provider"
)

// spoolPaths are the spool files in reading order: the rotated one first.
func (t *tail) spoolPaths() []string {
	if t.noSpool {
		return nil
	}
	return []string{paths.RotatedSpool(t.env), paths.Spool(t.env)}
}

// transcriptProviders are the providers whose transcripts are read.
func (t *tail) transcriptProviders() []provider.Transcripts {
	var ps []provider.Transcripts
	for _, p := range t.provs {
		if tp, ok := p.(provider.Transcripts); ok && (t.opts.Agent == "" || p.ID() == t.opts.Agent) {
			ps = append(ps, tp)
		}
	}
	return ps
}

// storeProviders are the providers whose databases are read.
func (t *tail) storeProviders() []provider.Stores {
	var ps []provider.Stores
	for _, p := range t.provs {
		if sp, ok := p.(provider.Stores); ok && (t.opts.Agent == "" || p.ID() == t.opts.Agent) {
			ps = append(ps, sp)
		}
	}
	return ps
}

// found is a transcript found under a root.
type found struct {
	path string
	root *provider.Root
	prov provider.Transcripts
}

// transcripts lists every existing transcript, in path order. The globs
// run side by side (each lists directories and stats what it finds): a
// replay starts reading only once they are done.
func (t *tail) transcripts() []found {
	type glob struct {
		pattern string
		root    *provider.Root
		prov    provider.Transcripts
		matches []string
	}
	var globs []*glob
	for _, p := range t.transcriptProviders() {
		for _, r := range p.TranscriptRoots(t.env) {
			r := r
			for _, g := range r.Globs {
				globs = append(globs, &glob{pattern: filepath.Join(r.Dir, filepath.FromSlash(g)), root: &r, prov: p})
			}
		}
	}
	var wg sync.WaitGroup
	for _, g := range globs {
		wg.Go(func() { g.matches, _ = filepath.Glob(g.pattern) })
	}
	wg.Wait()
	var all []found
	seen := map[string]bool{}
	for _, g := range globs {
		for _, m := range g.matches {
			if !seen[m] {
				seen[m] = true
				all = append(all, found{m, g.root, g.prov})
			}
		}
	}
	slices.SortFunc(all, func(a, b found) int { return strings.Compare(a.path, b.path) })
	return all
}

// unit is one thing a replay reads: a file (the spool or a transcript)
// or a store.
type unit struct {
	path  string
	src   *source
	store *store
}

// units lists what exists in reading order: the spool, then transcripts
// and stores in path order. With lazy, a transcript's parser is made by
// whoever reads it (source.ensureParser), on every core, not all here
// before the first file is read.
func (t *tail) units(lazy bool) []*unit {
	var us []*unit
	for _, p := range t.spoolPaths() {
		us = append(us, &unit{path: p, src: &source{path: p}})
	}
	var rest []*unit
	for _, f := range t.transcripts() {
		s := &source{path: f.path, prov: f.prov, root: f.root}
		if !lazy {
			s.ensureParser()
		}
		rest = append(rest, &unit{path: f.path, src: s})
	}
	seen := map[string]bool{}
	for _, p := range t.storeProviders() {
		for _, path := range p.StorePaths(t.env) {
			if path = filepath.Clean(path); !seen[path] {
				seen[path] = true
				rest = append(rest, &unit{path: path, store: &store{path: path, prov: p, r: p.NewStoreReader(path)}})
			}
		}
	}
	slices.SortStableFunc(rest, func(a, b *unit) int { return strings.Compare(a.path, b.path) })
	return append(us, rest...)
}

// stale reports whether a file was last written before --since.
func (t *tail) stale(info os.FileInfo) bool {
	return !t.cutoff.IsZero() && info.ModTime().Before(t.cutoff)
}

// once reads everything that exists, then returns.
func (t *tail) once(ctx context.Context) error {
	units := t.units(true)
	defer func() {
		for _, u := range units {
			if u.store != nil {
				u.store.r.Close()
			}
		}
	}()
	return t.replay(ctx, units, func(k *sink, u *unit) {
		if u.store != nil {
			k.readStore(u.store)
			return
		}
		s := u.src
		u.src = nil // read once: its parser can go
		s.ensureParser()
		if err := s.open(); err != nil {
			k.openFailed(s.path, err)
			return
		}
		defer s.close()
		if t.stale(s.info) {
			return
		}
		if err := k.read(s); err != nil {
			k.errorf("%s: %v", s.path, err)
		}
	})
}

// openFailed says why a file could not be read, unless it is simply gone.
func (k *sink) openFailed(path string, err error) {
	switch {
	case os.IsNotExist(err):
	case err == errNotRegular:
		k.errorf("%s: %v", path, err)
	default:
		k.errorf("%v", err)
	}
}
