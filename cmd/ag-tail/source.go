package main

import (
	"bytes"
	"io"
	"os"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// source is one file being read: the spool or a transcript. It remembers
// how far it got and holds back a last line until its newline arrives.
type source struct {
	path   string
	parser provider.TranscriptParser // nil for the spool
	root   *provider.Root            // the root it was found under (nil for the spool)

	f        *os.File
	info     os.FileInfo // of the open file, to notice replacement
	off      int64       // bytes handed on (through the last newline)
	line     int         // lines handed on
	buf      []byte      // read but not yet handed on: a partial line
	skipping bool        // inside a line too long to keep
	ev       event.Event // spool decoding
}

const (
	chunk   = 1 << 20
	maxLine = cli.MaxLine
)

func (s *source) open() error {
	f, err := os.Open(s.path)
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
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

// read hands every complete line written since the last call to t. It
// reads into the run's one scratch buffer; only a partial last line is
// kept with the source.
func (t *tail) read(s *source) error {
	if s.f == nil {
		return nil
	}
	buf := append(t.scratch[:0], s.buf...)
	defer func() {
		s.buf = append(s.buf[:0], buf...)
		if cap(buf) > cap(t.scratch) {
			t.scratch = buf[:0]
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
			buf = t.lines(s, buf)
			if t.err != nil {
				return t.err
			}
		}
		if err == io.EOF || n == 0 {
			// All that was written so far is read: a parser holding
			// events back for a later line lets them go.
			if d, ok := s.parser.(provider.TranscriptDrainer); ok {
				d.Drain(t.emit)
			}
			return t.err
		}
		if err != nil {
			return err
		}
	}
}

// lines hands on the complete lines in b and returns the rest, moved to
// the front.
func (t *tail) lines(s *source, b []byte) []byte {
	start := 0
	for {
		k := bytes.IndexByte(b[start:], '\n')
		if k < 0 {
			break
		}
		line := b[start : start+k]
		start += k + 1
		s.line++
		if s.skipping {
			s.skipping = false
			continue
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		t.handle(s, line)
		if t.err != nil {
			return b[:0]
		}
	}
	s.off += int64(start)
	rest := copy(b, b[start:])
	b = b[:rest]
	if len(b) > maxLine {
		// Too long to be a line anyone meant; drop it up to its newline.
		s.off += int64(len(b))
		t.prog.Errorf("%s:%d: line longer than %d bytes, skipped", s.path, s.line+1, maxLine)
		b, s.skipping = b[:0], true
	}
	return b
}

// handle turns one line into events.
func (t *tail) handle(s *source, line []byte) {
	t.at = cli.Place{Name: s.path, Line: s.line}
	if s.parser != nil {
		if err := s.parser.Parse(line, t.emit); err != nil {
			t.bad++
			t.prog.Errorf("%s:%d: %v", s.path, s.line, err)
		}
		return
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	e := &s.ev
	if err := event.Decode(line, e); err != nil {
		t.bad++
		t.prog.Errorf("%s:%d: %v", s.path, s.line, err)
		return
	}
	if err := e.Validate(); err != nil {
		t.bad++
		t.prog.Errorf("%s:%d: %v", s.path, s.line, err)
		return
	}
	t.emit(e)
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
