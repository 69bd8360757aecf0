// Package spool appends event lines to ag's spool file, the one place
// every hook writes and ag-tail follows.
//
// Many hook processes append at once. Each append is one write(2) on a
// file opened O_APPEND, which the kernel applies whole at the end of the
// file, so lines never interleave. Rotation (spool.ndjson → spool.ndjson.1
// when the next line would take the file past its limit) needs a lock:
// each writer holds an exclusive flock from its size check to its write
// (or the rename), and a writer that finds its file renamed under it
// reopens the path, so no line lands in the rotated file after the rename
// and neither file outgrows the limit. The lock is held for one write, a
// few microseconds.
package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agwatch/ag/filters/paths"
)

// DefaultMax is the size past which the spool is rotated.
const DefaultMax = 16 << 20

// MaxEnv overrides DefaultMax (bytes); tests use it to rotate small files.
const MaxEnv = "AG_SPOOL_MAX"

// Modes of what Append creates: the spool holds prompts and commands.
const (
	FileMode fs.FileMode = 0o600
	DirMode  fs.FileMode = 0o700
)

// Max is the rotation size from the environment: $AG_SPOOL_MAX if it is a
// positive number, else DefaultMax.
func Max(env func(string) string) int64 {
	if v := env(MaxEnv); v == "" {
		return DefaultMax
	} else if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
		return n
	}
	return DefaultMax
}

// ErrNotRegular is a spool that is a FIFO, a device or a socket, or a
// symlink (refused by O_NOFOLLOW), or another user's file.
var ErrNotRegular = errors.New("spool: not a regular file of the user's")

// Check says why the spool at path is not used, without opening it: its
// folder is not the user's alone (paths.CheckDir), or the spool (or the
// rotated one) is there as something other than a regular file of the
// user's — a symlink, a FIFO. The hooks refuse such a spool silently (an
// agent reads what a hook prints); a reader calls Check to say why.
func Check(path string) error {
	if err := paths.CheckDir(filepath.Dir(path)); err != nil {
		return err
	}
	for _, p := range []string{path, Rotated(path)} {
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symlink: %w", p, ErrNotRegular)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("%s is a %s: %w", p, kind(fi.Mode()), ErrNotRegular)
		case !owned(fi):
			return fmt.Errorf("%s belongs to another user: %w", p, ErrNotRegular)
		}
	}
	return nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "folder"
	}
	return "special file"
}

// Rotated is the name a spool is rotated to.
func Rotated(path string) string { return path + ".1" }

// Append writes lines (one or more whole lines, each ending in '\n') to
// the spool at path with one write, creating the file (0600) and its
// directories (0700) when missing, and rotating the file first when the
// lines would take it past max bytes. It never prints; the caller decides
// what an error is worth.
//
// The spool's folder must be the user's and writable by nobody else
// (paths.CheckDir), and the spool a regular file: it is opened without
// following a symlink and without waiting (O_NOFOLLOW|O_NONBLOCK), then
// checked by fstat, so a planted spool.ndjson -> ~/.bashrc or a FIFO
// gets nothing and holds nobody (ErrNotRegular).
func Append(path string, lines []byte, max int64) error {
	if len(lines) == 0 {
		return nil
	}
	if err := paths.CheckDir(filepath.Dir(path)); err != nil {
		return err
	}
	for range 64 { // each retry means another writer rotated meanwhile
		f, err := open(path)
		if err != nil {
			return err
		}
		ok, err := appendTo(f, path, lines, max)
		f.close()
		if ok || err != nil {
			return err
		}
	}
	return errors.New("spool: rotated under us too many times")
}

// open opens path for appending, making its directories when missing.
func open(path string) (file, error) {
	f, err := openAppend(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), DirMode); err != nil {
			return f, err
		}
		f, err = openAppend(path)
	}
	return f, err
}

// appendTo writes lines to f (path's file when opened) and reports false
// when f is no longer the file at path, or has just been rotated away, so
// the caller reopens. The size check and the write happen under one
// exclusive lock: with a shared one, two writers could both find room for
// their line and together take the file past max.
func appendTo(f file, path string, lines []byte, max int64) (bool, error) {
	if err := f.lock(); err != nil {
		return false, err
	}
	defer f.unlock()
	size, same, err := f.stat(path)
	if err != nil || !same {
		return false, err // !same: another writer rotated it
	}
	if size > 0 && size+int64(len(lines)) > max {
		return false, os.Rename(path, Rotated(path))
	}
	return true, f.write(lines)
}
