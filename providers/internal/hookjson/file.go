package hookjson

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agwatch/ag/providers/provider"
)

// BackupSuffix names the copy of a config file taken before each change:
// settings.json → settings.json.ag-backup, beside the path as given (so a
// symlinked dotfile's backup stays out of the dotfiles repository). It
// always holds the file as it was just before ag's latest change.
const BackupSuffix = ".ag-backup"

// newFileMode is the mode of a config file ag creates.
const newFileMode fs.FileMode = 0o600

// load reads and parses path. A missing file is an empty document; exists
// says which.
func load(path string) (d *Doc, data []byte, exists bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		d, _ := Parse(nil)
		return d, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	d, err = Parse(data)
	if err != nil {
		return nil, nil, true, fmt.Errorf("%s: %w (left unchanged)", path, err)
	}
	return d, data, true, nil
}

// Install adds the spec's handlers to the file at path (see Doc.Install),
// writing it atomically after a backup, unless dry.
func Install(path string, s *Spec, dry bool) (provider.InstallResult, error) {
	return edit(path, dry, func(d *Doc) []string { return d.Install(s) })
}

// Uninstall removes every handler of ours from the file at path.
func Uninstall(path string, s *Spec, dry bool) (provider.InstallResult, error) {
	return edit(path, dry, func(d *Doc) []string { return d.Uninstall(s) })
}

// Status reads the file at path.
func Status(path string, s *Spec) (provider.InstallStatus, error) {
	st := provider.InstallStatus{Path: path}
	d, _, exists, err := load(path)
	if err != nil {
		return st, err
	}
	if !exists {
		return st, nil
	}
	st.State, st.Reasons = d.Status(s)
	return st, nil
}

func edit(path string, dry bool, change func(*Doc) []string) (provider.InstallResult, error) {
	res := provider.InstallResult{Path: path}
	d, old, exists, err := load(path)
	if err != nil {
		return res, err
	}
	res.Actions = change(d)
	if len(res.Actions) == 0 {
		return res, nil
	}
	res.Changed = true
	if dry {
		return res, nil
	}
	if exists {
		res.Backup = path + BackupSuffix
		if err := writeAtomic(res.Backup, old, modeOf(path)); err != nil {
			return res, fmt.Errorf("backup: %w", err)
		}
	}
	if err := writeAtomic(path, d.Bytes(), modeOf(path)); err != nil {
		return res, err
	}
	return res, nil
}

// modeOf is the permission bits of the file path points to, or the mode
// for a new config file.
func modeOf(path string) fs.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return newFileMode
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

// WriteAtomic is writeAtomic for other agents' config files (Codex's
// config.toml), so every config ag edits is replaced the same careful way.
func WriteAtomic(path string, data []byte, mode fs.FileMode) error {
	return writeAtomic(path, data, mode)
}

// writeAtomic replaces path's target with data: a temporary file in the
// same directory, synced, given mode, then renamed over it. A reader sees
// the old file or the new one, never half of either.
func writeAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".ag-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), target)
}
