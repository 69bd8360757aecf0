package main

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/provider"
)

// spoolPaths are the spool files in reading order: the rotated one first.
func (t *tail) spoolPaths() []string {
	return []string{paths.RotatedSpool(t.env), paths.Spool(t.env)}
}

// found is a transcript found under a root.
type found struct {
	path string
	root *provider.Root
	prov provider.Transcripts
}

// transcripts lists every existing transcript, in path order.
func (t *tail) transcripts() []found {
	var all []found
	seen := map[string]bool{}
	for _, p := range t.transcriptProviders() {
		for _, r := range p.TranscriptRoots(t.env) {
			r := r
			for _, g := range r.Globs {
				ms, _ := filepath.Glob(filepath.Join(r.Dir, filepath.FromSlash(g)))
				for _, m := range ms {
					if !seen[m] {
						seen[m] = true
						all = append(all, found{m, &r, p})
					}
				}
			}
		}
	}
	slices.SortFunc(all, func(a, b found) int {
		switch {
		case a.path < b.path:
			return -1
		case a.path > b.path:
			return 1
		}
		return 0
	})
	return all
}

// stale reports whether a file was last written before --since.
func (t *tail) stale(info os.FileInfo) bool {
	return !t.cutoff.IsZero() && info.ModTime().Before(t.cutoff)
}

// once reads every file that exists, then returns.
func (t *tail) once() error {
	var files []*source
	for _, p := range t.spoolPaths() {
		files = append(files, &source{path: p})
	}
	for _, f := range t.transcripts() {
		files = append(files, &source{path: f.path, parser: f.prov.NewTranscriptParser(f.path), root: f.root})
	}
	for _, s := range files {
		if err := s.open(); err != nil {
			if !os.IsNotExist(err) {
				t.prog.Errorf("%v", err)
			}
			continue
		}
		if t.stale(s.info) {
			s.close()
			continue
		}
		err := t.read(s)
		s.close()
		if err != nil {
			return err
		}
	}
	return nil
}
