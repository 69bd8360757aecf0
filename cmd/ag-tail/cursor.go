package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/regfile"
	"github.com/agwatch/ag/filters/replace"
	"github.com/agwatch/ag/providers/provider"
)

// The cursor is where a restarted `ag-tail --follow` goes on from, kept
// in the state dir:
//
//   - tail.cursor, replaced atomically: the last few checkpoints, and for
//     every file and store the versions of what ag-tail knew of it (its
//     identity, how far it read, its parser's provider.Checkpointer state),
//     each valid from the checkpoint it was taken at;
//   - tail.meters, appended to: the meter ids counted (the de-duplication
//     across files), each checkpoint knowing how many of them it counts.
//
// After each checkpoint ag-tail writes a mark event; ag-fold ties its
// state file to the last mark it folded and lists the events it folded
// since (state.Mark). A restart reads that state file: if its mark is one
// of the cursor's checkpoints, ag-tail writes the states ag-fold saved,
// then goes on from the checkpoint, leaving out the events ag-fold already
// has. Otherwise (no cursor, no mark, --replay, another consumer) it
// replays everything, as --once reads it.

const (
	// cursorEvery is how often, at most, a checkpoint is written while
	// there is output.
	cursorEvery = 2 * time.Second
	// remarkEvery: while idle the last mark is said again this often, so
	// what else ag-fold folds meanwhile (ag-detect) stays within bounds.
	remarkEvery = time.Minute
	// keepCheckpoints is how many checkpoints a state file may be tied to.
	keepCheckpoints = 4
	// tailLen is how many bytes before a file's offset tell it is still
	// the same file (a hash of them is kept).
	tailLen = 4096
)

// version is what a checkpoint knows of a file or store.
type version struct {
	seq      uint64
	gone     bool // removed
	dev, ino uint64
	off      int64 // lines handed on; a whole file's size read
	line     int
	mtime    int64 // a whole file's, in ns
	tail     uint64
	started  bool
	foreign  bool
	hasState bool
	state    []byte // provider.Checkpointer's
}

// same reports whether v and w say the same of a file.
func (v *version) same(w *version) bool {
	return v.gone == w.gone && v.dev == w.dev && v.ino == w.ino && v.off == w.off && v.line == w.line &&
		v.mtime == w.mtime && v.tail == w.tail && v.started == w.started && v.foreign == w.foreign &&
		v.hasState == w.hasState && bytes.Equal(v.state, w.state)
}

type checkpoint struct {
	seq    uint64
	meters int      // meter ids counted (the first of tail.meters)
	skip   []uint64 // events to leave out after it (see resume)
}

type cursor struct {
	dir      string
	lock     *os.File
	instance string
	scope    string
	seqs     []checkpoint // oldest first
	files    map[string][]version
	meters   *os.File
	nmeters  int
	last     time.Time // the last checkpoint written
	lastMark time.Time // the last mark said
	dirty    bool      // read or written since the last checkpoint
}

func (c *cursor) path() string { return filepath.Join(c.dir, "tail.cursor") }

// errLocked: another ag-tail --follow keeps the cursor.
var errLocked = errors.New("locked")

// openCursor takes the cursor in dir for this run (scope: what options
// shape the output) and loads it; a cursor that does not load, or was made
// for another scope, is started afresh.
func openCursor(dir, scope string) (*cursor, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "tail.cursor.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, errLocked
	}
	c := &cursor{dir: dir, lock: lock, scope: scope, files: map[string][]version{}}
	if c.meters, err = os.OpenFile(filepath.Join(dir, "tail.meters"), os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		lock.Close()
		return nil, err
	}
	if b, err := regfile.ReadFile(c.path(), 64<<20); err == nil {
		if err := c.parse(b); err != nil || c.scope != scope {
			c.fresh()
		}
	} else {
		c.fresh()
	}
	return c, nil
}

func (c *cursor) close() {
	c.meters.Close()
	c.lock.Close()
}

// fresh forgets every checkpoint: a new instance, so no state file's mark
// can name one of its checkpoints by chance.
func (c *cursor) fresh() {
	var b [6]byte
	rand.Read(b[:])
	c.instance = hex.EncodeToString(b[:])
	c.seqs, c.files, c.nmeters = nil, map[string][]version{}, 0
	c.meters.Truncate(0)
}

// find returns the checkpoint a mark ("<instance>.<seq>") names.
func (c *cursor) find(mark string) (checkpoint, bool) {
	inst, n, ok := strings.Cut(mark, ".")
	seq, err := strconv.ParseUint(n, 10, 64)
	if !ok || err != nil || inst != c.instance {
		return checkpoint{}, false
	}
	for _, ck := range c.seqs {
		if ck.seq == seq {
			return ck, true
		}
	}
	return checkpoint{}, false
}

func (c *cursor) mark(seq uint64) string { return c.instance + "." + strconv.FormatUint(seq, 10) }

func (c *cursor) newest() uint64 {
	if len(c.seqs) == 0 {
		return 0
	}
	return c.seqs[len(c.seqs)-1].seq
}

// at is what checkpoint seq knew of path.
func (c *cursor) at(path string, seq uint64) (*version, bool) {
	vs := c.files[path]
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].seq <= seq {
			return &vs[i], !vs[i].gone
		}
	}
	return nil, false
}

// byIdentity finds the file checkpoint seq knew under another name (the
// spool rotated while ag-tail was down).
func (c *cursor) byIdentity(dev, ino, seq uint64) (*version, bool) {
	for p := range c.files {
		if v, ok := c.at(p, seq); ok && v.dev == dev && v.ino == ino && v.ino != 0 {
			return v, true
		}
	}
	return nil, false
}

// rewind drops what came after checkpoint ck: its files' later versions,
// the later checkpoints and the meters they counted.
func (c *cursor) rewind(ck checkpoint) {
	for p, vs := range c.files {
		n := 0
		for _, v := range vs {
			if v.seq <= ck.seq {
				vs[n] = v
				n++
			}
		}
		if n == 0 {
			delete(c.files, p)
		} else {
			c.files[p] = vs[:n]
		}
	}
	keep := c.seqs[:0]
	for _, k := range c.seqs {
		if k.seq <= ck.seq {
			keep = append(keep, k)
		}
	}
	c.seqs = keep
	c.nmeters = ck.meters
	c.meters.Truncate(int64(ck.meters) * 8)
}

// loadMeters reads the first n meter ids.
func (c *cursor) loadMeters(n int, into map[uint64]struct{}) error {
	b := make([]byte, n*8)
	if _, err := c.meters.ReadAt(b, 0); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return fmt.Errorf("%s: %w", c.meters.Name(), err)
	}
	for i := 0; i < len(b); i += 8 {
		into[binary.LittleEndian.Uint64(b[i:])] = struct{}{}
	}
	return nil
}

// add records a version of path at seq, unless it says what the last did.
func (c *cursor) add(path string, v version) {
	vs := c.files[path]
	if n := len(vs); n > 0 && vs[n-1].same(&v) {
		return
	}
	if n := len(vs); n == 0 && v.gone {
		return
	}
	c.files[path] = append(vs, v)
}

// commit appends the checkpoint, keeps the last few, and writes the
// cursor: the meter ids first, then the file that counts them.
func (c *cursor) commit(ck checkpoint, newMeters []uint64) error {
	if len(newMeters) > 0 {
		b := make([]byte, 8*len(newMeters))
		for i, m := range newMeters {
			binary.LittleEndian.PutUint64(b[8*i:], m)
		}
		if _, err := c.meters.WriteAt(b, int64(c.nmeters)*8); err != nil {
			return err
		}
		c.nmeters += len(newMeters)
	}
	ck.meters = c.nmeters
	c.seqs = append(c.seqs, ck)
	if len(c.seqs) > keepCheckpoints {
		c.seqs = append(c.seqs[:0], c.seqs[len(c.seqs)-keepCheckpoints:]...)
	}
	oldest := c.seqs[0].seq
	for p, vs := range c.files {
		// What the oldest checkpoint knew, and what came after it.
		i := 0
		for i+1 < len(vs) && vs[i+1].seq <= oldest {
			i++
		}
		vs = vs[i:]
		if len(vs) == 1 && vs[0].gone && vs[0].seq <= oldest {
			delete(c.files, p)
			continue
		}
		c.files[p] = vs
	}
	return c.write()
}

// The file: a header line, one line per checkpoint, one per version.
//
//	ag-tail-cursor 1 <instance> <scope, quoted>
//	c <seq> <meters> <skip keys in hex, or ->
//	v <seq> <flags> <dev> <ino> <off> <line> <mtime> <tail> <state, base64 or -> <path, quoted>

const (
	flagGone = 1 << iota
	flagStarted
	flagForeign
	flagState
)

func (c *cursor) write() error {
	b := make([]byte, 0, 64<<10)
	b = append(b, "ag-tail-cursor 1 "...)
	b = append(b, c.instance...)
	b = append(b, ' ')
	b = strconv.AppendQuote(b, c.scope)
	b = append(b, '\n')
	for _, ck := range c.seqs {
		b = append(b, "c "...)
		b = strconv.AppendUint(b, ck.seq, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(ck.meters), 10)
		b = append(b, ' ')
		if len(ck.skip) == 0 {
			b = append(b, '-')
		}
		for _, k := range ck.skip {
			b = fmt.Appendf(b, "%016x", k)
		}
		b = append(b, '\n')
	}
	for p, vs := range c.files {
		for _, v := range vs {
			flags := 0
			for _, f := range []struct {
				on  bool
				bit int
			}{{v.gone, flagGone}, {v.started, flagStarted}, {v.foreign, flagForeign}, {v.hasState, flagState}} {
				if f.on {
					flags |= f.bit
				}
			}
			b = append(b, "v "...)
			for _, n := range []uint64{v.seq, uint64(flags), v.dev, v.ino, uint64(v.off), uint64(v.line), uint64(v.mtime), v.tail} {
				b = strconv.AppendUint(b, n, 10)
				b = append(b, ' ')
			}
			if v.hasState {
				b = base64.RawStdEncoding.AppendEncode(b, v.state)
			} else {
				b = append(b, '-')
			}
			b = append(b, ' ')
			b = strconv.AppendQuote(b, p)
			b = append(b, '\n')
		}
	}
	return replace.File(c.path(), b)
}

func (c *cursor) parse(b []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	if !sc.Scan() {
		return errors.New("empty")
	}
	head := strings.SplitN(sc.Text(), " ", 4)
	if len(head) != 4 || head[0] != "ag-tail-cursor" || head[1] != "1" {
		return errors.New("not a cursor")
	}
	scope, err := strconv.Unquote(head[3])
	if err != nil {
		return err
	}
	c.instance, c.scope = head[2], scope
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case len(f) == 4 && f[0] == "c":
			var ck checkpoint
			var err1, err2 error
			ck.seq, err1 = strconv.ParseUint(f[1], 10, 64)
			ck.meters, err2 = strconv.Atoi(f[2])
			if err1 != nil || err2 != nil || ck.meters < 0 {
				return errors.New("bad checkpoint")
			}
			if f[3] != "-" {
				if len(f[3])%16 != 0 {
					return errors.New("bad skip")
				}
				for i := 0; i < len(f[3]); i += 16 {
					k, err := strconv.ParseUint(f[3][i:i+16], 16, 64)
					if err != nil {
						return err
					}
					ck.skip = append(ck.skip, k)
				}
			}
			c.seqs = append(c.seqs, ck)
		case len(f) >= 11 && f[0] == "v":
			var n [8]uint64
			for i := range n {
				var err error
				if n[i], err = strconv.ParseUint(f[1+i], 10, 64); err != nil {
					return err
				}
			}
			v := version{seq: n[0], dev: n[2], ino: n[3], off: int64(n[4]), line: int(n[5]), mtime: int64(n[6]), tail: n[7],
				gone: n[1]&flagGone != 0, started: n[1]&flagStarted != 0, foreign: n[1]&flagForeign != 0, hasState: n[1]&flagState != 0}
			if v.hasState {
				var err error
				if v.state, err = base64.RawStdEncoding.DecodeString(f[9]); err != nil {
					return err
				}
			}
			// The path is the rest of the line, quoted.
			i := 0
			for k := 0; k < 10; k++ {
				i += strings.Index(line[i:], " ") + 1
			}
			p, err := strconv.Unquote(line[i:])
			if err != nil {
				return err
			}
			c.files[p] = append(c.files[p], v)
		default:
			return fmt.Errorf("bad line %q", line)
		}
	}
	if len(c.seqs) == 0 {
		return errors.New("no checkpoint")
	}
	if st, err := c.meters.Stat(); err != nil || st.Size() < int64(c.seqs[len(c.seqs)-1].meters)*8 {
		return errors.New("meters missing")
	}
	c.nmeters = c.seqs[len(c.seqs)-1].meters
	return sc.Err()
}

// identity is a file's device and inode.
func identity(info os.FileInfo) (dev, ino uint64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// tailHash hashes the tailLen bytes of f before off (fewer at its start).
func tailHash(f *os.File, off int64) (uint64, error) {
	n := min(off, tailLen)
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off-n); err != nil {
		return 0, err
	}
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h, nil
}

// fileVersion is what ag-tail knows of a source now.
func fileVersion(s *source, seq uint64, last *version) (version, bool) {
	v := version{seq: seq, off: s.off, line: s.line, started: s.started, foreign: s.foreign}
	if s.info != nil {
		v.dev, v.ino = identity(s.info)
		if s.whole != nil {
			v.mtime = s.info.ModTime().UnixNano()
		}
	}
	if last != nil && !last.gone && last.dev == v.dev && last.ino == v.ino && last.off == v.off &&
		last.line == v.line && (s.whole == nil || last.mtime == v.mtime) && last.started == v.started && last.foreign == v.foreign {
		return *last, false // nothing read since: its parser knows what it knew
	}
	if s.dormant { // as a restart found it: what it was told
		v.tail, v.mtime, v.state, v.hasState = s.tail, s.info.ModTime().UnixNano(), s.saved, s.hasSaved
		return v, true
	}
	if s.whole == nil && s.f != nil {
		if info, err := s.f.Stat(); err == nil {
			v.mtime = info.ModTime().UnixNano() // a restart finding it so need not open it
		}
	}
	switch {
	case s.whole != nil || v.off == 0:
	case s.f != nil:
		h, err := tailHash(s.f, v.off)
		if err != nil {
			return version{}, false
		}
		v.tail = h
	default:
		v.tail = s.tail // closed (renamed away): hashed before it closed
	}
	if cp, ok := s.parser.(provider.Checkpointer); ok {
		if b, err := cp.Checkpoint(); err == nil {
			v.state, v.hasState = b, true
		}
	}
	return v, true
}

// storeVersion is what ag-tail knows of a store now.
func storeVersion(st *store, seq uint64) version {
	v := version{seq: seq}
	if cp, ok := st.r.(provider.Checkpointer); ok {
		if b, err := cp.Checkpoint(); err == nil {
			v.state, v.hasState = b, true
		}
	}
	return v
}

// markEvent is the mark written after a checkpoint.
func markEvent(id string, now time.Time) []byte {
	e := event.New(event.Mark, now, "", "")
	e.ID = id
	return event.AppendJSON(nil, &e)
}
