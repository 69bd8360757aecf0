// Package regfile opens the files ag is given to read — a state file, a
// key, a record of what it did — so that no file can hold a program up:
// the open does not wait (a FIFO would block it until a writer came,
// deaf to SIGTERM, since a signal does not end a blocked open(2)), and
// anything but a regular file is refused once open, by fstat, so what is
// checked is what is read.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is the error for a FIFO, a device, a socket or a folder
// where a file was expected.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading without waiting and returns it with its
// fstat, or an error wrapping ErrNotRegular when it is not a regular
// file.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, fi, nil
}

// ReadFile is os.ReadFile through Open, of at most max bytes: a file
// longer than that is an error, not read.
func ReadFile(path string, max int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d this file may hold", path, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s: more than the %d bytes this file may hold", path, max)
	}
	return b, err
}
