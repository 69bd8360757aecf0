// Package configtx edits agents' config files as one transaction: every
// installer of one `ag-hook install` (several agents, several files each,
// the hooks and the statusLine of one file) reads and stages through one
// Tx, and nothing is written unless every edit succeeded. Commit then
// backs up and replaces each changed file atomically; if a replacement
// fails half way, the files already replaced are put back.
//
// Backups: FILE.ag-backup holds the file as it was before ag first changed
// it. ag's own later writes never overwrite it — an install that writes a
// file twice, or an uninstall, would otherwise leave the in-between or the
// installed version there — unless the installer says the file, as read,
// holds nothing of ag's (Original): then it is the user's newer original.
package configtx

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/agwatch/ag/filters/regfile"
)

// BackupSuffix names a file's backup, beside the path as given (so a
// symlinked dotfile's backup stays out of the dotfiles repository).
const BackupSuffix = ".ag-backup"

// NewFileMode is the mode of a config file ag creates.
const NewFileMode fs.FileMode = 0o600

// Tx is one transaction. Not safe for concurrent use.
type Tx struct {
	files map[string]*file
	order []string // paths in the order first read or staged
	made  []string // folders Commit created, deepest first
}

type file struct {
	path     string // as given
	target   string // symlinks resolved: what gets replaced
	orig     []byte // on disk when first seen
	exists   bool
	mode     fs.FileMode
	data     []byte // staged content
	staged   bool
	remove   bool // staged removal
	original bool // the installer says orig holds nothing of ag's
	ours     bool // the installer says orig holds nothing but ag's: no backup
}

// maxConfig bounds an agent's config file ag reads: settings are kilobytes.
const maxConfig = 16 << 20

// New returns an empty transaction.
func New() *Tx { return &Tx{files: map[string]*file{}} }

// get reads path the first time it is named.
func (tx *Tx) get(path string) (*file, error) {
	if f := tx.files[path]; f != nil {
		return f, nil
	}
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	f := &file{path: path, target: target, mode: NewFileMode}
	// regfile: a FIFO in the config's place would hold the command in
	// open(2); anything but a regular file is refused below.
	data, err := regfile.ReadFile(target, maxConfig)
	switch {
	case errors.Is(err, regfile.ErrNotRegular):
		return nil, fmt.Errorf("%s: not a regular file", path)
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		f.orig, f.exists = data, true
		if fi, err := os.Stat(target); err == nil {
			f.mode = fi.Mode().Perm()
		}
	}
	if fi, err := os.Stat(target); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	tx.files[path] = f
	tx.order = append(tx.order, path)
	return f, nil
}

// Read returns path's content as the transaction sees it: what was staged
// for it, else what is on disk. A missing file is no error: exists says.
func (tx *Tx) Read(path string) (data []byte, exists bool, err error) {
	f, err := tx.get(path)
	if err != nil {
		return nil, false, err
	}
	switch {
	case f.remove:
		return nil, false, nil
	case f.staged:
		return f.data, true, nil
	}
	return f.orig, f.exists, nil
}

// Write stages data as path's new content.
func (tx *Tx) Write(path string, data []byte) error {
	f, err := tx.get(path)
	if err != nil {
		return err
	}
	f.data, f.staged, f.remove = slices.Clone(data), true, false
	return nil
}

// Remove stages path's removal (a file ag owns whole, such as a plugin).
func (tx *Tx) Remove(path string) error {
	f, err := tx.get(path)
	if err != nil {
		return err
	}
	f.data, f.staged, f.remove = nil, false, true
	return nil
}

// Original marks path, as it is on disk, as holding nothing of ag's: if it
// changes, its backup is taken anew (the user's newer original).
func (tx *Tx) Original(path string) error {
	f, err := tx.get(path)
	if err != nil {
		return err
	}
	f.original = true
	return nil
}

// Ours marks path, as it is on disk, as holding nothing but what ag put
// there (a file ag's install created): its change takes no backup, which
// would be of ag's own text and not the user's.
func (tx *Tx) Ours(path string) error {
	f, err := tx.get(path)
	if err != nil {
		return err
	}
	f.ours = true
	return nil
}

// Change is one file the transaction changes (or, dry, would change).
type Change struct {
	Path    string
	Created bool   // it did not exist
	Removed bool   // it goes away
	Backup  string // its backup (taken now or kept from before); "" if none
	Fresh   bool   // the backup was taken by this commit
}

// Changes lists the files whose content the transaction changes, in the
// order they were first named, with the backup each would get.
func (tx *Tx) Changes() []Change {
	var out []Change
	for _, p := range tx.order {
		f := tx.files[p]
		if !f.changes() {
			continue
		}
		c := Change{Path: p, Created: !f.exists, Removed: f.remove}
		if f.exists && (!f.ours || exists(p+BackupSuffix)) {
			c.Backup = p + BackupSuffix
			c.Fresh = f.original || !exists(c.Backup)
		}
		out = append(out, c)
	}
	return out
}

func (f *file) changes() bool {
	switch {
	case f.remove:
		return f.exists
	case f.staged:
		return !f.exists || !bytes.Equal(f.data, f.orig)
	}
	return false
}

// Commit writes every change: backups first, then each new file to a
// temporary beside it, then the renames. A file changed on disk since it
// was read is not overwritten: Commit fails and writes nothing. If a
// rename fails, the files already replaced are restored.
func (tx *Tx) Commit() ([]Change, error) {
	changes := tx.Changes()
	for _, c := range changes {
		f := tx.files[c.Path]
		now, err := regfile.ReadFile(f.target, maxConfig)
		if errors.Is(err, fs.ErrNotExist) {
			now, err = nil, nil
			if f.exists {
				return nil, fmt.Errorf("%s: removed while ag was editing it (left unchanged)", c.Path)
			}
		} else if err == nil && (!f.exists || !bytes.Equal(now, f.orig)) {
			return nil, fmt.Errorf("%s: changed while ag was editing it (left unchanged)", c.Path)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, c := range changes {
		if c.Fresh {
			f := tx.files[c.Path]
			if err := writeAtomic(c.Backup, f.orig, f.mode); err != nil {
				return nil, fmt.Errorf("backup of %s: %w", c.Path, err)
			}
		}
	}
	var missing []string // folders the new files need that are not there yet
	for _, c := range changes {
		if f := tx.files[c.Path]; !f.remove {
			missing = append(missing, absent(filepath.Dir(f.target))...)
		}
	}
	// Stage every new file before replacing any.
	temps := map[string]string{}
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	for _, c := range changes {
		f := tx.files[c.Path]
		if f.remove {
			continue
		}
		t, err := writeTemp(f.target, f.data, f.mode)
		if err != nil {
			cleanup()
			return nil, err
		}
		temps[c.Path] = t
	}
	var done []*file
	for _, c := range changes {
		f := tx.files[c.Path]
		var err error
		if f.remove {
			err = os.Remove(f.target)
		} else {
			err = os.Rename(temps[c.Path], f.target)
			delete(temps, c.Path)
		}
		if err != nil {
			cleanup()
			for _, d := range done {
				d.restore()
			}
			return nil, err
		}
		done = append(done, f)
	}
	for _, d := range missing {
		if exists(d) && !slices.Contains(tx.made, d) {
			tx.made = append(tx.made, d)
		}
	}
	return changes, nil
}

// Made lists the folders the last Commit created for the files it wrote,
// deepest first: an uninstall may remove them once they are empty again.
func (tx *Tx) Made() []string { return tx.made }

// absent is dir and those of its parents that do not exist, deepest first.
func absent(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); !exists(d); d = filepath.Dir(d) {
		out = append(out, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	return out
}

// restore puts back what was on disk before Commit replaced it.
func (f *file) restore() {
	if !f.exists {
		os.Remove(f.target)
		return
	}
	writeAtomic(f.target, f.orig, f.mode)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// resolve follows path's final symlinks, even a dangling one, so writing
// replaces the file a dotfiles manager links to and keeps the link.
func resolve(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// writeTemp writes data, synced and with mode, to a new temporary file in
// target's directory and returns its name.
func writeTemp(target string, data []byte, mode fs.FileMode) (name string, err error) {
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".ag-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return "", err
	}
	if err = f.Chmod(mode); err != nil {
		return "", err
	}
	if err = f.Sync(); err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

// writeAtomic replaces path's target with data: a reader sees the old file
// or the new one, never half of either.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	t, err := writeTemp(target, data, mode)
	if err != nil {
		return err
	}
	if err := os.Rename(t, target); err != nil {
		os.Remove(t)
		return err
	}
	return nil
}
