//go:build !unix

package spool

import "os"

// file is the spool opened for appending. Without flock, rotation may race
// a writer; appends stay whole.
type file struct{ f *os.File }

func openAppend(path string) (file, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, FileMode)
	return file{f}, err
}

func (f file) close()      { f.f.Close() }
func (f file) lock() error { return nil }
func (f file) unlock()     {}
func (f file) write(b []byte) error {
	_, err := f.f.Write(b)
	return err
}

func (f file) stat(path string) (int64, bool, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return 0, false, err
	}
	pi, err := os.Stat(path)
	return fi.Size(), err == nil && os.SameFile(fi, pi), nil
}

func owned(os.FileInfo) bool { return true }
