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

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/provider"
)

// watchRoot is a directory tree the follower watches: a transcript root,
// the state dir (for the spool) or the folder of a store's files.
type watchRoot struct {
	root  provider.Root
	prov  provider.Transcripts // nil: the spool or a store
	store *store               // the store whose files these are
	ready bool                 // root.Dir exists and is watched
}

// follower keeps the open sources and the watches.
type follower struct {
	*tail
	live    *sink // events read while following, written at once
	w       *fsnotify.Watcher
	roots   []*watchRoot
	files   map[string]*source
	stores  []*store
	watched map[string]bool
	moved   map[string]movedSource // renamed away, keyed by file identity
	// gone are whole-file parsers whose file went away: a new copy
	// renamed over it (after a rename away, or a delete) is the same
	// conversation.
	gone map[string]movedSource
	// dirty are whole files to read again once the burst of
	// notifications is over (each write would be a whole read).
	dirty    map[*source]bool
	reread   *time.Timer // the next store or whole file due
	rereadOn bool
	nextPoll time.Time // stores' slow timer

	cursor    *cursor // nil: none kept (see cursor.go)
	ckTimer   *time.Timer
	ckOn      bool
	cursorErr string // the last cursor error said
}

type movedSource struct {
	s    *source
	when time.Time
}

const (
	// pollEvery is how often files under NeedsPoll roots are read without
	// a notification.
	pollEvery = time.Second
	// movedFor is how long a renamed file waits to be seen under a new name.
	movedFor = 5 * time.Second
	// minReread is the least time between two reads of one store or whole
	// file: a database writes its files several times a transaction.
	minReread = 100 * time.Millisecond
	// storePoll reads every store this often in case a change went
	// unnoticed (a write through a memory map notifies nobody).
	storePoll = 10 * time.Second
	// wholeRetry is when a whole file that did not parse is read again.
	wholeRetry = 500 * time.Millisecond
)

func (t *tail) follow(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	f := &follower{tail: t, w: w, files: map[string]*source{}, watched: map[string]bool{},
		moved: map[string]movedSource{}, gone: map[string]movedSource{}, dirty: map[*source]bool{}}
	if f.live, err = t.newSink(t.commit); err != nil {
		return err
	}
	f.reread = time.NewTimer(time.Hour)
	f.reread.Stop()
	f.ckTimer = time.NewTimer(time.Hour)
	f.ckTimer.Stop()
	defer func() {
		for _, s := range f.files {
			s.close()
		}
		for _, st := range f.stores {
			st.r.Close()
		}
		if f.cursor != nil {
			f.cursor.close()
		}
	}()
	if !t.noSpool {
		spoolDir := paths.StateDir(t.env)
		f.roots = append(f.roots, &watchRoot{root: provider.Root{Dir: spoolDir,
			Globs: []string{filepath.Base(paths.RotatedSpool(t.env)), filepath.Base(paths.Spool(t.env))}}})
	}
	for _, p := range t.transcriptProviders() {
		for _, r := range p.TranscriptRoots(t.env) {
			f.roots = append(f.roots, &watchRoot{root: r, prov: p})
		}
	}
	units := t.units(false)
	for _, u := range units {
		if u.store != nil {
			f.addStore(u.store)
		}
	}

	// Watch first, then replay in the same order as --once (or go on from
	// the cursor), so nothing written in between is missed; then follow.
	rp := f.startCursor()
	for _, r := range f.roots {
		f.setup(r, false)
	}
	if rp != nil {
		err = f.resume(ctx, units, rp)
	} else {
		err = f.replayUnits(ctx, units, nil)
	}
	if err != nil {
		return err
	}
	if f.cursor != nil {
		err = f.checkpoint()
	} else {
		err = f.flush()
	}
	if err != nil {
		return err
	}
	f.nextPoll = time.Now().Add(t.storeEvery)
	f.armReread()

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
			if f.cursor != nil && (f.cursor.dirty || f.wrote) && !f.asKilled {
				// Stopped (SIGTERM): a last checkpoint, so ag-fold, which
				// reads on to the end, ties its state file to all of it.
				f.checkpoint()
			}
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
		case <-f.reread.C:
			f.rereadOn = false
		case <-f.ckTimer.C:
			f.ckOn = false
		}
		// Drain what is queued before flushing, so a burst is one write.
		if len(w.Events) == 0 {
			f.rereadDue()
			if err := f.flush(); err != nil {
				return err
			}
			if err := f.cursorDue(); err != nil {
				return err
			}
		}
	}
}

// replayUnits reads what exists on every core, leaving each file open at
// its end to follow it from there. resume, if given, goes on from the
// cursor where it can; what it cannot is read as new.
func (f *follower) replayUnits(ctx context.Context, units []*unit, resume func(*sink, *unit) bool) error {
	for _, u := range units {
		if s := u.src; s != nil {
			if r := f.rootOf(s.path); r != nil {
				s.root = &r.root
			}
		}
	}
	err := f.replay(ctx, units, func(k *sink, u *unit) {
		if resume != nil && resume(k, u) {
			return
		}
		if u.store != nil {
			k.readStore(u.store)
			u.store.last, u.store.readSince = time.Now(), true
			return
		}
		s := u.src
		if s.whole != nil {
			emit := k.emitFn
			if info, err := os.Stat(s.path); err == nil && f.stale(info) {
				emit = discard // known from now on, not replayed
			}
			if err := k.readWhole(s, emit, false); err != nil {
				s.info = nil // not there (yet): the next event says
			}
			return
		}
		if err := s.open(); err != nil {
			k.openFailed(s.path, err)
			return
		}
		if f.stale(s.info) {
			if err := s.skipTo(s.info.Size()); err != nil {
				k.errorf("%v", err)
			}
			return
		}
		if err := k.read(s); err != nil {
			k.errorf("%s: %v", s.path, err)
		}
	})
	for _, u := range units {
		if s := u.src; s != nil && (s.f != nil || s.dormant || s.whole != nil && s.info != nil) {
			f.files[s.path] = s
		}
	}
	return err
}

func discard(*event.Event) {}

func (f *follower) flush() error {
	f.live.flush()
	if f.err != nil {
		return f.err
	}
	return f.buf.Flush()
}

// addStore watches the folders of a store's files.
func (f *follower) addStore(st *store) {
	f.stores = append(f.stores, st)
	byDir := map[string]*watchRoot{}
	for _, p := range st.r.Watch() {
		dir := filepath.Dir(p)
		r := byDir[dir]
		if r == nil {
			r = &watchRoot{root: provider.Root{Dir: dir}, store: st}
			byDir[dir] = r
			f.roots = append(f.roots, r)
		}
		r.root.Globs = append(r.root.Globs, filepath.Base(p))
	}
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
	if r.store != nil {
		f.watch(dir)
		if read {
			r.store.dirty = true // the folder appeared: the store may have
		}
		return
	}
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
			f.track(p, r)
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

// rootOf is the transcript root (or the spool's) a file belongs to.
func (f *follower) rootOf(p string) *watchRoot {
	for _, r := range f.roots {
		if file, _ := f.match(r, p); file && r.store == nil {
			return r
		}
	}
	return nil
}

// track opens a file that appeared and reads what it holds: it is new,
// and read whole.
func (f *follower) track(p string, r *watchRoot) {
	if r == nil {
		return
	}
	f.touch()
	if s := f.files[p]; s != nil {
		f.readOrRestart(s)
		return
	}
	var s *source
	if r.prov != nil {
		s = newSource(p, r.prov, &r.root)
	} else {
		s = &source{path: p, root: &r.root}
	}
	if s.whole != nil {
		if g, ok := f.gone[p]; ok {
			s = g.s // a new copy of the conversation it was reading
			delete(f.gone, p)
		}
		f.files[p] = s
		f.dirty[s] = true
		return
	}
	if err := s.open(); err != nil {
		f.live.openFailed(p, err)
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
	f.readOrRestart(s)
}

// readOrRestart reads new lines, starting over when the file was
// truncated, and moving on to the new file when another took its name.
func (f *follower) readOrRestart(s *source) {
	f.touch()
	if s.whole != nil {
		f.dirty[s] = true
		return
	}
	f.wakeOrRenew(s)
	if s.replaced() {
		f.retire(s)
		delete(f.files, s.path)
		f.track(s.path, f.rootOf(s.path))
		return
	}
	if s.truncated() {
		if _, err := s.f.Seek(0, 0); err == nil {
			s.restart()
		}
	}
	if err := f.live.read(s); err != nil && f.err == nil {
		f.prog.Errorf("%s: %v", s.path, err)
	}
}

// retire reads what a file still holds and puts it aside by identity, in
// case it shows up again under another name.
func (f *follower) retire(s *source) {
	f.wakeOrRenew(s)
	f.live.read(s)
	s.keepTail()
	s.close()
	f.moved[fileKey(s.info)] = movedSource{s, time.Now()}
}

func (f *follower) event(ev fsnotify.Event) {
	p := ev.Name
	for _, r := range f.roots {
		if r.store != nil && r.ready {
			if isFile, _ := f.match(r, p); isFile {
				r.store.dirty = true
				return
			}
		}
	}
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
			if r.store != nil {
				continue
			}
			isFile, isDir := f.match(r, p)
			if isDir && ev.Has(fsnotify.Create) {
				if info, err := os.Stat(p); err == nil && info.IsDir() {
					f.watchTree(r, p, true)
				}
			}
			if isFile {
				f.track(p, r)
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
		f.touch()
		if s.whole != nil {
			delete(f.dirty, s)
			f.gone[p] = movedSource{s, time.Now()}
			return
		}
		if ev.Has(fsnotify.Rename) {
			f.retire(s)
			return
		}
		f.wakeOrRenew(s)
		f.live.read(s) // the open file still holds what was written last
		s.close()
	}
}

// touch notes that the cursor may be behind what the follower knows.
func (f *follower) touch() {
	if f.cursor != nil {
		f.cursor.dirty = true
	}
}

// rereadDue reads the whole files and stores that changed, each at most
// every minReread, and every store on the slow timer.
func (f *follower) rereadDue() {
	now := time.Now()
	if len(f.stores) > 0 && !now.Before(f.nextPoll) {
		for _, st := range f.stores {
			st.dirty = st.dirty || st.exists
		}
		f.nextPoll = now.Add(f.storeEvery)
	}
	for s := range f.dirty {
		if now.Sub(s.lastRead) < minReread {
			continue
		}
		delete(f.dirty, s)
		s.lastRead = now
		if err := f.live.readWhole(s, f.live.emit, true); err != nil && !os.IsNotExist(err) {
			f.live.openFailed(s.path, err)
		}
		if s.retry {
			// Caught halfway through a rewrite, maybe: look again soon,
			// and say what is wrong if the file is still the same.
			s.retry = false
			s.lastRead = now.Add(wholeRetry - minReread)
			f.dirty[s] = true
		}
	}
	for _, st := range f.stores {
		if st.dirty && now.Sub(st.last) >= minReread {
			st.dirty, st.last, st.readSince = false, now, true
			f.live.readStore(st) // what it writes is news for the cursor; a read that finds nothing is not
		}
	}
	f.armReread()
}

// armReread sets the timer for the next reread due: a store or whole
// file held back by minReread, else the stores' slow timer.
func (f *follower) armReread() {
	var next time.Time
	due := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for s := range f.dirty {
		due(s.lastRead.Add(minReread))
	}
	for _, st := range f.stores {
		if st.dirty {
			due(st.last.Add(minReread))
		}
	}
	for _, st := range f.stores {
		if st.exists { // the slow timer, for a database there is
			due(f.nextPoll)
			break
		}
	}
	if f.rereadOn {
		f.reread.Stop()
		f.rereadOn = false
	}
	if !next.IsZero() {
		f.reread.Reset(max(time.Until(next), time.Millisecond))
		f.rereadOn = true
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
	if len(f.moved) > 0 || len(f.gone) > 0 {
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
	for k, m := range f.gone {
		if time.Since(m.when) > movedFor {
			delete(f.gone, k)
		}
	}
}

// rescan looks at every root again after lost notifications.
func (f *follower) rescan() {
	for _, r := range f.roots {
		switch {
		case r.store != nil:
			r.store.dirty = true
		case r.ready:
			f.watchTree(r, r.root.Dir, true)
		default:
			f.setup(r, true)
		}
	}
	for _, s := range f.files {
		f.readOrRestart(s)
	}
}
