// Package replace writes a file so that a reader sees the old contents or
// the new ones, never half of either: a temporary file in the same folder,
// renamed over the path.
package replace

import (
	"os"
	"path/filepath"
)

// File replaces path with data (mode 0600, as os.CreateTemp makes it).
func File(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
