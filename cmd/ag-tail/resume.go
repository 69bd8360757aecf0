package main

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/regfile"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/provider"
)

// resumePoint is where a restart goes on from: a checkpoint, the state
// file's states ag-fold saved under its mark, and what ag-fold folded after.
type resumePoint struct {
	ck     checkpoint
	mark   state.Mark
	states []event.Event
}

// startCursor takes the cursor for this run and says where to resume from
// (nil: replay everything). With --jq the output is not events, so there
// is no cursor; with --replay the cursor starts afresh.
func (f *follower) startCursor() *resumePoint {
	if f.opts.JQ != "" || f.notOurs {
		return nil
	}
	dir := paths.StateDir(f.env)
	c, err := openCursor(dir, "agent="+f.opts.Agent+"\nwhere="+f.opts.Where)
	switch {
	case errors.Is(err, errLocked):
		f.prog.Errorf("another ag-tail --follow keeps the cursor in %s: this one replays everything and keeps none", dir)
		return nil
	case err != nil:
		f.prog.Errorf("cursor: %v (replaying everything)", err)
		return nil
	}
	f.cursor, f.saveMeters = c, true
	if f.opts.Replay {
		c.fresh()
		return nil
	}
	// The state file, or as a new ag-fold found it when it began (it
	// starts its own empty, maybe before this run read it).
	path := paths.StateFile(f.env)
	for _, p := range []string{path, state.Previous(path)} {
		b, err := regfile.ReadFile(p, 64<<20)
		if err != nil {
			continue
		}
		m := state.ReadMark(b)
		ck, ok := c.find(m.ID)
		if !ok {
			continue
		}
		sf, err := state.Parse(b)
		if err != nil {
			continue
		}
		return &resumePoint{ck: ck, mark: m, states: sf.Sessions}
	}
	return nil
}

// resume goes on from a checkpoint: the states ag-fold saved, then what
// every file and store holds past what the checkpoint knew, less what
// ag-fold folded after it.
func (f *follower) resume(ctx context.Context, units []*unit, rp *resumePoint) error {
	c := f.cursor
	seq := c.newest() + 1
	c.rewind(rp.ck)
	if err := c.loadMeters(rp.ck.meters, f.meters); err != nil {
		f.prog.Errorf("cursor: %v", err)
	}
	skip := append(append([]uint64(nil), rp.ck.skip...), rp.mark.After...)
	if len(skip) > 0 {
		// A checkpoint that is the one resumed from plus what to leave
		// out: a restart during this one goes on from there.
		if err := c.commit(checkpoint{seq: seq, skip: skip}, nil); err != nil {
			return err
		}
	} else {
		seq = rp.ck.seq // nothing to leave out: that one is where to go on from
	}
	f.write(markEvent(c.mark(seq), f.now()))
	for i := range rp.states {
		f.write(event.AppendJSON(nil, &rp.states[i]))
	}
	f.skip = map[uint64]int{}
	for _, k := range skip {
		f.skip[k]++
	}
	defer func() { f.skip = nil }()
	from := rp.ck.seq
	return f.replayUnits(ctx, units, func(k *sink, u *unit) bool { return f.resumeUnit(k, u, from) })
}

// resumeUnit reads a file or store from where checkpoint seq left it, and
// reports whether it could (else it is read as new).
func (f *follower) resumeUnit(k *sink, u *unit, seq uint64) bool {
	c := f.cursor
	if st := u.store; st != nil {
		v, ok := c.at(st.path, seq)
		if ok && v.hasState {
			if cp, isCp := st.r.(provider.Checkpointer); isCp && cp.Restore(v.state) != nil {
				st.r.Close()
				st.r = st.prov.NewStoreReader(st.path)
			}
		}
		k.readStore(st)
		st.last, st.readSince = time.Now(), true
		return true
	}
	s := u.src
	if s.whole != nil {
		info, err := os.Stat(s.path)
		if err != nil {
			return false
		}
		v, ok := c.at(s.path, seq)
		if !ok {
			return false
		}
		emit := k.emitFn
		dev, ino := identity(info)
		switch cp, isCp := s.parser.(provider.Checkpointer); {
		case v.hasState && isCp && cp.Restore(v.state) == nil:
		case v.hasState && isCp:
			s.parser = s.prov.NewTranscriptParser(s.path)
			s.whole, _ = s.parser.(provider.WholeFileParser)
		case dev == v.dev && ino == v.ino && info.Size() == v.off && info.ModTime().UnixNano() == v.mtime:
			emit = discard // read before, unchanged: what the parser knew
		}
		if err := k.readWhole(s, emit, false); err != nil {
			s.info = nil
		}
		return true
	}
	info, err := os.Stat(s.path)
	if err != nil || !info.Mode().IsRegular() {
		return false // gone, or not a file: as new (it says so)
	}
	dev, ino := identity(info)
	v, ok := c.at(s.path, seq)
	if !ok || v.dev != dev || v.ino != ino {
		v, ok = c.byIdentity(dev, ino, seq) // renamed while down (the spool rotated)
	}
	if !ok || v.off > info.Size() {
		return false // new, replaced or truncated: read from the start
	}
	s.info, s.off, s.line, s.started, s.foreign, s.tail = info, v.off, v.line, v.started, v.foreign, v.tail
	s.saved, s.hasSaved = v.state, v.hasState
	if info.Size() == v.off && info.ModTime().UnixNano() == v.mtime {
		// Not touched since: opened, checked and its parser restored only
		// once something is written to it.
		s.dormant = true
		return true
	}
	if !k.wake(s) {
		return false
	}
	if err := k.read(s); err != nil {
		k.errorf("%s: %v", s.path, err)
	}
	return true
}

// wake opens a file a restart knew (s holds what the checkpoint said) and
// goes on where it was, its parser restored — or, with no checkpoint of
// the parser's, read again from the start saying nothing up to there. It
// reports false, leaving the source closed, when the file is no longer the
// one the checkpoint knew (rewritten in place).
func (k *sink) wake(s *source) bool {
	s.dormant = false
	was := s.info
	if err := s.open(); err != nil {
		return false
	}
	if !os.SameFile(was, s.info) || s.info.Size() < s.off {
		s.close()
		return false
	}
	if s.off > 0 {
		if h, err := tailHash(s.f, s.off); err != nil || h != s.tail {
			s.close()
			return false
		}
	}
	off := s.off
	restored := s.parser == nil
	if cp, isCp := s.parser.(provider.Checkpointer); isCp && s.hasSaved {
		if restored = cp.Restore(s.saved) == nil; !restored {
			s.parser = s.prov.NewTranscriptParser(s.path)
		}
	}
	s.saved, s.hasSaved = nil, false
	if !restored {
		// The parser learns the file again, saying nothing up to off.
		s.off, s.line, s.started, s.foreign, s.muteTo = 0, 0, false, false, off
		off = 0
	}
	if err := s.skipTo(off); err != nil {
		s.close()
		return false
	}
	return true
}

// wakeOrRenew wakes a dormant source; one that is not what the checkpoint
// knew is read from its start, as a file truncated or replaced.
func (f *follower) wakeOrRenew(s *source) {
	if !s.dormant || f.live.wake(s) {
		return
	}
	if err := s.open(); err != nil {
		return
	}
	s.restart()
	if s.prov != nil {
		s.parser = s.prov.NewTranscriptParser(s.path)
	}
}

// checkpoint saves where every file and store is, then marks the output.
func (f *follower) checkpoint() error {
	c := f.cursor
	if err := f.flush(); err != nil {
		return err
	}
	seq := c.newest() + 1
	present := map[string]bool{}
	note := func(s *source) {
		present[s.path] = true
		var last *version
		if vs := c.files[s.path]; len(vs) > 0 {
			last = &vs[len(vs)-1]
		}
		if v, changed := fileVersion(s, seq, last); changed {
			c.add(s.path, v)
		}
	}
	for _, s := range f.files {
		note(s)
	}
	for _, m := range f.moved {
		note(m.s) // under the name it had: a restart finds it by identity
	}
	for _, g := range f.gone {
		note(g.s)
	}
	for _, st := range f.stores {
		present[st.path] = true
		if st.readSince {
			c.add(st.path, storeVersion(st, seq))
			st.readSince = false
		}
	}
	for p, vs := range c.files {
		if !present[p] && !vs[len(vs)-1].gone {
			c.add(p, version{seq: seq, gone: true})
		}
	}
	now := time.Now()
	c.last, c.dirty, f.wrote = now, false, false
	if err := c.commit(checkpoint{seq: seq}, f.newMeters); err != nil {
		if msg := err.Error(); msg != f.cursorErr {
			f.prog.Errorf("cursor: %v", err)
			f.cursorErr = msg
		}
		return nil
	}
	f.cursorErr = ""
	f.newMeters = f.newMeters[:0]
	return f.sayMark(now)
}

// sayMark writes the newest checkpoint's mark.
func (f *follower) sayMark(now time.Time) error {
	c := f.cursor
	if len(c.seqs) == 0 {
		return nil
	}
	c.lastMark = now
	f.write(markEvent(c.mark(c.newest()), f.now()))
	return f.flush()
}

// cursorDue checkpoints when output waits to be covered and the last
// checkpoint is cursorEvery old, says the mark again when idle for
// remarkEvery, and arms the timer for whichever comes next.
func (f *follower) cursorDue() error {
	c := f.cursor
	if c == nil {
		return nil
	}
	now := time.Now()
	var next time.Time
	if c.dirty || f.wrote {
		if next = c.last.Add(f.cursorEvery); !now.Before(next) {
			if err := f.checkpoint(); err != nil {
				return err
			}
			next = now.Add(remarkEvery)
		}
	} else if next = c.lastMark.Add(remarkEvery); !now.Before(next) {
		if err := f.sayMark(now); err != nil {
			return err
		}
		next = now.Add(remarkEvery)
	}
	if f.ckOn {
		f.ckTimer.Stop()
	}
	f.ckTimer.Reset(next.Sub(now))
	f.ckOn = true
	return nil
}
