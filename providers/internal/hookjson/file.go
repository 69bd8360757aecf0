package hookjson

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/agwatch/ag/providers/configtx"
	"github.com/agwatch/ag/providers/provider"
)

// BackupSuffix names a config file's backup (see configtx).
const BackupSuffix = configtx.BackupSuffix

// load reads and parses path through tx. A missing file is an empty
// document; exists says which.
func load(tx *configtx.Tx, path string, f Format) (d *Doc, exists bool, err error) {
	data, exists, err := tx.Read(path)
	if err != nil {
		return nil, false, err
	}
	if !exists {
		d, _ := Parse(nil)
		return d, false, nil
	}
	d, err = f.Parse(data)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w (left unchanged)", path, err)
	}
	return d, true, nil
}

// Install adds the spec's handlers to the file at path (see Doc.Install),
// staged in ie's transaction.
func Install(ie provider.InstallEnv, path string, s *Spec) (provider.InstallResult, error) {
	return edit(ie, path, s, func(d *Doc) []string { return d.Install(s) })
}

// Uninstall removes every handler of ours from the file at path. When
// what is left means what the file before ag meant (its backup, which
// holds nothing of ag's), the backup's bytes are written: the user's file
// comes back byte for byte, down to an empty "hooks": {} ag's install
// filled. When it means something else (the file changed since), what is
// left stays as it is and a note says the backup is not it.
func Uninstall(ie provider.InstallEnv, path string, s *Spec) (provider.InstallResult, error) {
	return edit(ie, path, s, func(d *Doc) []string {
		actions := d.Uninstall(s)
		if len(actions) == 0 {
			return nil
		}
		backup := path + BackupSuffix
		orig, err := os.ReadFile(backup)
		if errors.Is(err, fs.ErrNotExist) && len(d.members) == 0 {
			// Nothing left, and no file from before ag: ag's install made
			// this file, and it goes as it came.
			d.goes = true
			return actions
		}
		if err != nil {
			return actions
		}
		bd, err := s.Format.Parse(orig)
		if err != nil {
			return actions
		}
		if st, _ := bd.Status(s); st != provider.NotInstalled {
			return actions
		}
		now, err := s.Format.Parse(d.Bytes())
		if err == nil && now.canonical() == bd.canonical() {
			d.replace = orig
			return actions
		}
		return append(actions, fmt.Sprintf("! %s is not byte for byte the file before ag (%s): it changed since, and those changes are kept", path, backup))
	})
}

// Status reads the file at path (as it is on disk).
func Status(path string, s *Spec) (provider.InstallStatus, error) {
	st := provider.InstallStatus{Path: path}
	d, exists, err := load(configtx.New(), path, s.Format)
	if err != nil {
		return st, err
	}
	if !exists {
		return st, nil
	}
	st.State, st.Reasons = d.Status(s)
	return st, nil
}

func edit(ie provider.InstallEnv, path string, s *Spec, change func(*Doc) []string) (provider.InstallResult, error) {
	return ie.Edit(func(tx *configtx.Tx) (provider.InstallResult, error) {
		res := provider.InstallResult{Path: path}
		d, exists, err := load(tx, path, s.Format)
		if err != nil {
			return res, err
		}
		if exists && s != nil {
			if st, _ := d.Status(s); st == provider.NotInstalled {
				// Nothing of ag's in it yet: the user's own file.
				if err := tx.Original(path); err != nil {
					return res, err
				}
			}
		}
		res.Actions = change(d)
		if len(res.Actions) == 0 {
			return res, nil
		}
		res.Changed = true
		if d.goes {
			if err := tx.Ours(path); err != nil {
				return res, err
			}
			res.Actions = append(res.Actions, "~ "+path+": removed (ag's install had made it)")
			return res, tx.Remove(path)
		}
		return res, tx.Write(path, d.Bytes())
	})
}
