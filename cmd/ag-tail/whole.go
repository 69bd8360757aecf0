package main

import (
	"fmt"
	"io"
	"os"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// readWhole hands a transcript its agent rewrites whole to its parser, as
// the file is now: opened again by path each time, so a new copy renamed
// over the old one is read, by the same parser (it knows what it has
// emitted). A file larger than provider.MaxWholeFile is reported once and
// skipped until it shrinks; an error is said once for as long as it lasts.
// A patient reader (a follower) says nothing of an error the first time
// it meets a version of the file and sets retry instead: an agent
// rewriting the file in place may have been caught halfway.
func (k *sink) readWhole(s *source, emit func(*event.Event), patient bool) error {
	s.close()
	f, info, err := openRegular(s.path)
	if err != nil {
		return err
	}
	defer f.Close()
	s.info = info
	if info.Size() > provider.MaxWholeFile {
		if !s.tooBig {
			k.errorf("%s: %d bytes, more than the %d a whole-file transcript may have; skipped until it shrinks", s.path, info.Size(), provider.MaxWholeFile)
			s.tooBig = true
		}
		return nil
	}
	s.tooBig = false
	data, err := readAll(f, info.Size(), &k.scratch)
	if err != nil {
		return err
	}
	if int64(len(data)) > provider.MaxWholeFile {
		return nil // grew past the bound while read: the next change says so
	}
	err = s.whole.ParseWhole(data, emit)
	if d, ok := s.parser.(provider.TranscriptDrainer); ok {
		d.Drain(emit)
	}
	s.off = int64(len(data))
	if err != nil {
		version := fmt.Sprint(len(data), info.ModTime().UnixNano())
		if patient && version != s.errVersion {
			s.errVersion, s.retry = version, true
			return nil
		}
		if msg := err.Error(); msg != s.lastErr {
			k.errorf("%s: %v", s.path, err)
			s.lastErr = msg
		}
		return nil
	}
	s.lastErr, s.errVersion = "", ""
	return nil
}

// readAll reads f to its end (size is what it held when opened) into buf,
// at most one byte past provider.MaxWholeFile.
func readAll(f *os.File, size int64, buf *[]byte) ([]byte, error) {
	b := (*buf)[:0]
	if int64(cap(b)) < size+1 {
		b = make([]byte, 0, size+512)
	}
	for int64(len(b)) <= provider.MaxWholeFile {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF || (n == 0 && err == nil) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
	}
	if cap(b) <= 4*chunk {
		*buf = b[:0] // reuse it next time; a large one goes
	}
	return b, nil
}
