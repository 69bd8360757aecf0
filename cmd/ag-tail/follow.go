package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/provider"
)

// watchRoot is a directory tree the follower watches: a transcript root
// or the state dir (for the spool).
type watchRoot struct {
	root  provider.Root
	prov  provider.Transcripts // nil: the spool
	ready bool                 // root.Dir exists and is watched
}

// follower keeps the open sources and the watches.
type follower struct {
	*tail
	w       *fsnotify.Watcher
	roots   []*watchRoot
	files   map[string]*source
	watched map[string]bool
	moved   map[string]movedSource // renamed away, keyed by file identity
}

type movedSource struct {
	s    *source
	when time.Time
}

// pollEvery is how often files under NeedsPoll roots are read without a
// notification.
const pollEvery = time.Second

// movedFor is how long a renamed file waits to be seen under a new name.
const movedFor = 5 * time.Second

func (t *tail) follow(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	f := &follower{tail: t, w: w, files: map[string]*source{}, watched: map[string]bool{}, moved: map[string]movedSource{}}
	defer func() {
		for _, s := range f.files {
			s.close()
		}
	}()
	spoolDir := paths.StateDir(t.env)
	f.roots = append(f.roots, &watchRoot{root: provider.Root{Dir: spoolDir,
		Globs: []string{filepath.Base(paths.RotatedSpool(t.env)), filepath.Base(paths.Spool(t.env))}}})
	for _, p := range t.transcriptProviders() {
		for _, r := range p.TranscriptRoots(t.env) {
			f.roots = append(f.roots, &watchRoot{root: r, prov: p})
		}
	}

	// Watch first, then replay in the same order as --once, so nothing
	// written in between is missed; then follow.
	for _, r := range f.roots {
		f.setup(r, false)
	}
	for _, p := range t.spoolPaths() {
		f.track(p, f.roots[0], true)
	}
	for _, fd := range t.transcripts() {
		f.track(fd.path, f.rootOf(fd.path), true)
	}
	if err := f.flush(); err != nil {
		return err
	}

	// The ticker runs only while there is something to poll or retire:
	// an idle follower should not wake every second for nothing.
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	ticking := true
	for {
		if want := f.needsTick(); want != ticking {
			if want {
				tick.Reset(pollEvery)
			} else {
				tick.Stop()
			}
			ticking = want
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			f.event(ev)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Notifications were lost: look at everything again.
				f.rescan()
			} else {
				t.prog.Errorf("watch: %v", err)
			}
		case <-tick.C:
			f.poll()
		}
		// Drain what is queued before flushing, so a burst is one write.
		if len(w.Events) == 0 {
			if err := f.flush(); err != nil {
				return err
			}
		}
	}
}

func (f *follower) flush() error {
	if f.err != nil {
		return f.err
	}
	return f.buf.Flush()
}

// setup watches a root, or the nearest existing folder above it until it
// appears, and the folders under it that lead to transcripts; with read,
// it also reads the transcripts found there.
func (f *follower) setup(r *watchRoot, read bool) {
	if r.ready {
		return
	}
	dir := r.root.Dir
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		up := filepath.Dir(dir)
		for ; up != filepath.Dir(up); up = filepath.Dir(up) {
			if _, err := os.Stat(up); err == nil {
				break
			}
		}
		f.watch(up)
		// A folder made on the way between the Stat above and the watch
		// sent its event to nobody: look again now that the watch is in.
		rel, err := filepath.Rel(up, dir)
		if err != nil {
			return
		}
		next := filepath.Join(up, strings.Split(rel, string(filepath.Separator))[0])
		if _, err := os.Stat(next); err != nil {
			return // its Create will come to the watch on up
		}
	}
	r.ready = true
	f.watchTree(r, dir, read)
}

// watchTree watches dir and every folder below it on the way to a
// transcript; with read, it also reads the transcripts already there (a
// folder made before its watch was in place may already hold files).
func (f *follower) watchTree(r *watchRoot, dir string, read bool) {
	f.watch(dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		isFile, isDir := f.match(r, p)
		switch {
		case e.IsDir() && isDir:
			f.watchTree(r, p, read)
		case !e.IsDir() && isFile && read:
			f.track(p, r, false)
		}
	}
}

func (f *follower) watch(dir string) {
	if f.watched[dir] {
		return
	}
	if err := f.w.Add(dir); err != nil {
		f.prog.Errorf("watch %s: %v", dir, err)
		return
	}
	f.watched[dir] = true
}

func (f *follower) match(r *watchRoot, p string) (file, dir bool) {
	rel, err := filepath.Rel(r.root.Dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false, false
	}
	return r.root.Match(filepath.ToSlash(rel))
}

func (f *follower) rootOf(p string) *watchRoot {
	for _, r := range f.roots {
		if file, _ := f.match(r, p); file {
			return r
		}
	}
	return nil
}

// track opens p and reads what it holds. At start-up (replay) a file not
// written since --since is read from its end only; a file that appears
// later is new and read whole.
func (f *follower) track(p string, r *watchRoot, replay bool) {
	if r == nil {
		return
	}
	if s := f.files[p]; s != nil {
		f.readOrRestart(s)
		return
	}
	s := &source{path: p, root: &r.root}
	if r.prov != nil {
		s.parser = r.prov.NewTranscriptParser(p)
	}
	if err := s.open(); err != nil {
		if !os.IsNotExist(err) {
			f.prog.Errorf("%v", err)
		}
		return
	}
	if m, ok := f.moved[fileKey(s.info)]; ok {
		// A file we were reading under another name (the spool rotated,
		// a file renamed over another): go on where it was.
		delete(f.moved, fileKey(s.info))
		m.s.f, m.s.info, m.s.path, m.s.root = s.f, s.info, p, &r.root
		if _, err := m.s.f.Seek(m.s.off+int64(len(m.s.buf)), 0); err != nil {
			f.prog.Errorf("%v", err)
		}
		f.files[p] = m.s
		f.readOrRestart(m.s)
		return
	}
	f.files[p] = s
	if replay && f.stale(s.info) {
		if err := s.skipTo(s.info.Size()); err != nil {
			f.prog.Errorf("%v", err)
		}
		return
	}
	f.readOrRestart(s)
}

// readOrRestart reads new lines, starting over when the file was
// truncated, and moving on to the new file when another took its name.
func (f *follower) readOrRestart(s *source) {
	if s.replaced() {
		f.retire(s)
		delete(f.files, s.path)
		root := f.rootOf(s.path)
		if root != nil {
			f.track(s.path, root, false)
		}
		return
	}
	if s.truncated() {
		if _, err := s.f.Seek(0, 0); err == nil {
			s.restart()
		}
	}
	if err := f.read(s); err != nil && f.err == nil {
		f.prog.Errorf("%s: %v", s.path, err)
	}
}

// retire reads what a file still holds and puts it aside by identity, in
// case it shows up again under another name.
func (f *follower) retire(s *source) {
	f.read(s)
	s.close()
	f.moved[fileKey(s.info)] = movedSource{s, time.Now()}
}

func (f *follower) event(ev fsnotify.Event) {
	p := ev.Name
	switch {
	case ev.Has(fsnotify.Create), ev.Has(fsnotify.Write):
		if s := f.files[p]; s != nil {
			f.readOrRestart(s)
			return
		}
		for _, r := range f.roots {
			if !r.ready {
				if strings.HasPrefix(r.root.Dir+string(filepath.Separator), p+string(filepath.Separator)) {
					f.setup(r, true) // the root, or a folder above it, appeared
				}
				continue
			}
			isFile, isDir := f.match(r, p)
			if isDir && ev.Has(fsnotify.Create) {
				if info, err := os.Stat(p); err == nil && info.IsDir() {
					f.watchTree(r, p, true)
				}
			}
			if isFile {
				f.track(p, r, false)
				return
			}
		}
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		s := f.files[p]
		if s == nil {
			f.unwatch(p)
			return
		}
		delete(f.files, p)
		if ev.Has(fsnotify.Rename) {
			f.retire(s)
			return
		}
		f.read(s) // the open file still holds what was written last
		s.close()
	}
}

// unwatch forgets a removed folder and marks roots inside it as gone.
func (f *follower) unwatch(p string) {
	if !f.watched[p] {
		return
	}
	delete(f.watched, p)
	for _, r := range f.roots {
		if r.root.Dir == p || strings.HasPrefix(r.root.Dir, p+string(filepath.Separator)) {
			r.ready = false
			f.setup(r, true)
		}
	}
}

// eventsMissAppends: where an agent appends through a descriptor it holds
// open, kqueue (macOS, the BSDs) may report nothing; inotify reports every
// write, whoever makes it.
const eventsMissAppends = runtime.GOOS != "linux"

// needsTick reports whether poll has work: files under NeedsPoll roots on
// a platform whose events miss their appends, or renamed files to retire.
func (f *follower) needsTick() bool {
	if len(f.moved) > 0 {
		return true
	}
	if !eventsMissAppends {
		return false
	}
	for _, s := range f.files {
		if s.root != nil && s.root.NeedsPoll {
			return true
		}
	}
	return false
}

// poll reads files whose appends the platform's events miss, and retires
// renamed files nobody claimed.
func (f *follower) poll() {
	for _, s := range f.files {
		if eventsMissAppends && s.root != nil && s.root.NeedsPoll {
			f.readOrRestart(s)
		}
	}
	for k, m := range f.moved {
		if time.Since(m.when) > movedFor {
			delete(f.moved, k)
		}
	}
}

// rescan looks at every root again after lost notifications.
func (f *follower) rescan() {
	for _, r := range f.roots {
		if r.ready {
			f.watchTree(r, r.root.Dir, true)
		} else {
			f.setup(r, true)
		}
	}
	for _, s := range f.files {
		f.readOrRestart(s)
	}
}
