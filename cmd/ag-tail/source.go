package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// source is one file being read: the spool or a transcript. A line file
// remembers how far it got and holds back a last line until its newline
// arrives; a whole file (provider.WholeFileParser) is handed over whole
// each time it changed.
type source struct {
	path   string
	prov   provider.Transcripts      // nil for the spool
	parser provider.TranscriptParser // nil for the spool
	whole  provider.WholeFileParser  // parser, when it reads whole files
	root   *provider.Root            // the root it was found under (nil for the spool)

	f        *os.File
	info     os.FileInfo // of the open file, to notice replacement
	off      int64       // bytes handed on (through the last newline)
	line     int         // lines handed on
	buf      []byte      // read but not yet handed on: a partial line
	skipping bool        // inside a line too long to keep
	ev       event.Event // spool decoding
	dec      event.Decoder
	// muteTo: lines up to this offset are handed to the parser with
	// nothing emitted or said (a restart teaching a parser that has no
	// checkpoint what it knew).
	muteTo int64
	tail   uint64 // tailHash at off, kept when the file is closed
	// dormant: a restart found the file as its checkpoint left it, and
	// opens it (wake) only when it changes; saved is its parser's
	// checkpoint until then.
	dormant  bool
	saved    []byte
	hasSaved bool

	// What has been said about bad lines: a file that is not JSON Lines
	// at all gets one message, and a run of bad lines one each.
	started bool // a line with content was seen
	foreign bool // its first line is not a JSON object: say nothing more
	lastBad bool // the line before was bad

	tooBig   bool      // a whole file over provider.MaxWholeFile, said once
	lastErr  string    // a whole file's last error, said once
	lastRead time.Time // a whole file's last read
	// errVersion is the size and time of the version of a whole file
	// that failed to parse; retry asks a follower to read it again.
	errVersion string
	retry      bool
}

func newSource(path string, prov provider.Transcripts, root *provider.Root) *source {
	s := &source{path: path, prov: prov, root: root}
	s.ensureParser()
	return s
}

// ensureParser gives a transcript its parser if it has none yet (the
// spool, with no provider, never has one).
func (s *source) ensureParser() {
	if s.parser == nil && s.prov != nil {
		s.parser = s.prov.NewTranscriptParser(s.path)
		s.whole, _ = s.parser.(provider.WholeFileParser)
	}
}

// keepTail notes the hash of the bytes before off, before the file closes.
func (s *source) keepTail() {
	if s.f != nil && s.off > 0 {
		s.tail, _ = tailHash(s.f, s.off)
	}
}

const (
	chunk   = 256 << 10 // what one read(2) asks for: a buffer that stays in the cache
	maxLine = cli.MaxLine
)

// errNotRegular: a FIFO, device or socket where a file was expected.
var errNotRegular = errors.New("not a regular file, skipped")

// openRegular opens path for reading if it is a regular file. A FIFO named
// like a transcript would block open(2) until a writer came and make the
// program deaf to Ctrl-C, so the kind is checked first, and the open does
// not wait (O_NONBLOCK) in case the file was swapped in between.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, info, errNotRegular
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if info, err = f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = errNotRegular
		}
		return nil, info, err
	}
	return f, info, nil
}

func (s *source) open() error {
	f, info, err := openRegular(s.path)
	if err != nil {
		return err
	}
	s.f, s.info = f, info
	return nil
}

func (s *source) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// restart reads the file again from its start (truncated or replaced).
func (s *source) restart() {
	s.off, s.line, s.buf, s.skipping = 0, 0, s.buf[:0], false
	s.started, s.foreign, s.lastBad = false, false, false
	if s.parser != nil {
		s.parser.Reset()
	}
}

// skipTo starts reading at the end of what the file holds now (a file too
// old for --since: only what is written from now on is read).
func (s *source) skipTo(off int64) error {
	if _, err := s.f.Seek(off, io.SeekStart); err != nil {
		return err
	}
	s.off = off
	return nil
}

// read hands every complete line written since the last call to the
// parser. It reads into the sink's scratch buffer; only a partial last
// line is kept with the source.
func (k *sink) read(s *source) error {
	if s.f == nil {
		return nil
	}
	if s.whole != nil {
		k.at = cli.Place{Name: s.path}
		return k.readWhole(s, k.emitFn, false)
	}
	if len(s.buf) == 0 && !s.skipping {
		k.readMapped(s)
	}
	buf := append(k.scratch[:0], s.buf...)
	defer func() {
		s.buf = append(s.buf[:0], buf...)
		if cap(buf) > cap(k.scratch) && cap(buf) <= 4*chunk {
			k.scratch = buf[:0]
		}
	}()
	for {
		if cap(buf)-len(buf) < chunk/4 {
			nb := make([]byte, len(buf), max(chunk, 2*cap(buf)))
			copy(nb, buf)
			buf = nb
		}
		n, err := s.f.Read(buf[len(buf):cap(buf)])
		if n > 0 {
			buf = buf[:len(buf)+n]
			buf = k.lines(s, buf, true)
			if k.t.stopped() {
				return nil
			}
		}
		if err == io.EOF || n == 0 || errors.Is(err, syscall.EAGAIN) {
			// All that was written so far is read: a parser holding
			// events back for a later line lets them go.
			if d, ok := s.parser.(provider.TranscriptDrainer); ok {
				d.Drain(k.emitFn)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lines hands on the complete lines in b and, with keep, returns the rest
// moved to the front. s.off follows each line handed on, so a read cut
// short (a mapping that faulted) resumes after the last one.
func (k *sink) lines(s *source, b []byte, keep bool) []byte {
	start := 0
	for {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			break
		}
		line := b[start : start+i]
		start += i + 1
		s.off += int64(i + 1)
		s.line++
		if s.skipping {
			s.skipping = false
			continue
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if s.muteTo > 0 {
			if s.off <= s.muteTo {
				k.handleMuted(s, line)
				continue
			}
			s.muteTo = 0
		}
		k.handle(s, line)
		if k.t.stopped() {
			return b[:0] // told to end (a replay only): what is left is not read
		}
	}
	if !keep {
		return nil
	}
	rest := copy(b, b[start:])
	b = b[:rest]
	if len(b) > maxLine {
		// Too long to be a line anyone meant; drop it up to its newline.
		s.off += int64(len(b))
		k.bad(s, s.line+1, "line longer than %d bytes, skipped", maxLine)
		b, s.skipping = b[:0], true
	}
	return b
}

// handle turns one line into events.
func (k *sink) handle(s *source, line []byte) {
	k.at = cli.Place{Name: s.path, Line: s.line}
	if !s.started {
		lead := bytes.TrimLeft(line, " \t")
		if len(lead) == 0 {
			return
		}
		s.started = true
		if lead[0] != '{' {
			// Not the format at all (a stray file under a root): one
			// message, then silence. Its lines are still offered, in
			// case some are events.
			k.errorf("%s:%d: not JSON Lines (the first line is not a JSON object); nothing more is reported for this file", s.path, s.line)
			s.foreign = true
		}
	}
	var err error
	if s.parser != nil {
		err = s.parser.Parse(line, k.emitFn)
	} else if len(bytes.TrimSpace(line)) > 0 {
		e := &s.ev
		if err = s.dec.Decode(line, e); err == nil {
			if err = e.Validate(); err == nil {
				k.emit(e)
			}
		}
	}
	if err != nil {
		k.bad(s, s.line, "%v", err)
		return
	}
	s.lastBad = false
}

// handleMuted hands a line to the parser and lets nothing out.
func (k *sink) handleMuted(s *source, line []byte) {
	if s.parser != nil {
		s.parser.Parse(line, discard)
	}
	s.started = s.started || len(bytes.TrimSpace(line)) > 0
}

// bad reports a bad line: the first of a run of them, unless the file is
// not JSON Lines at all.
func (k *sink) bad(s *source, line int, format string, args ...any) {
	if !s.lastBad && !s.foreign {
		k.errorf("%s:%d: "+format, append([]any{s.path, line}, args...)...)
	}
	s.lastBad = true
}

// replaced reports whether the file at s.path is no longer the one open.
func (s *source) replaced() bool {
	info, err := os.Stat(s.path)
	return err == nil && s.info != nil && !os.SameFile(info, s.info)
}

// truncated reports whether the open file shrank below what was read.
func (s *source) truncated() bool {
	info, err := s.f.Stat()
	return err == nil && info.Size() < s.off+int64(len(s.buf))
}
