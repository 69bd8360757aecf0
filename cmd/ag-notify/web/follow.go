package web

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/fsnotify/fsnotify"
	qrcode "github.com/skip2/go-qrcode"
)

// FollowKeys reads the keys events appended to path (ag-keys' output, as
// `ag-keys >> FILE` writes it) from its end on, for the page to show what
// ag-keys did with each press, until Close. The file is made (0600) if
// missing; one cut short is read again from its start.
func (s *Server) FollowKeys(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("--web-keys: %w", err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("--web-keys %s: want a regular file ag-keys appends to", path)
	}
	off, _ := f.Seek(0, io.SeekEnd)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		f.Close()
		return err
	}
	if err := w.Add(filepath.Dir(path)); err != nil {
		w.Close()
		f.Close()
		return err
	}
	s.mu.Lock()
	s.followers = append(s.followers, w)
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer f.Close()
		var part []byte
		var dec event.Decoder
		read := func() {
			if fi, err := f.Stat(); err == nil && fi.Size() < off {
				off, part = 0, nil // truncated: start again
			}
			b := make([]byte, 64<<10)
			for {
				n, err := f.ReadAt(b, off)
				off += int64(n)
				part = append(part, b[:n]...)
				if err != nil || n == 0 {
					break
				}
			}
			for {
				i := bytes.IndexByte(part, '\n')
				if i < 0 {
					break
				}
				var e event.Event
				if dec.Decode(part[:i], &e) == nil && e.Kind == event.Keys {
					s.Observe(&e)
				}
				part = part[i+1:]
			}
			part = append([]byte(nil), part...)
		}
		for ev := range w.Events {
			if filepath.Clean(ev.Name) == filepath.Clean(path) && ev.Op&(fsnotify.Write|fsnotify.Create) != 0 {
				read()
			}
		}
	}()
	return nil
}

// QR is s as a QR code in a terminal: two rows of modules a line, in
// half blocks, with its quiet zone.
func QR(s string) (string, error) {
	q, err := qrcode.New(s, qrcode.Low)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(q.ToSmallString(false), "\n"), nil
}
