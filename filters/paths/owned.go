package paths

import (
	"errors"
	"fmt"
)

// NotOursError says why a folder may not hold ag's files: another user
// could plant a symlink or a FIFO there (ag's hooks would then append to a
// file of the attacker's choosing, or hang), or forge the events in it.
type NotOursError struct {
	Dir string
	Why string
}

func (e *NotOursError) Error() string { return e.Dir + " " + e.Why }

// ErrNotOurs matches every NotOursError (errors.Is).
var ErrNotOurs = errors.New("folder not the user's own")

func (e *NotOursError) Is(target error) bool { return target == ErrNotOurs }

// Refusal is how a program says it, in one line: the folder, why, what ag
// does not do there, and what to do.
func Refusal(err error, what string) string {
	var no *NotOursError
	if !errors.As(err, &no) {
		return err.Error()
	}
	return fmt.Sprintf("%s: %s (make it yours with chmod 700, or set AG_DIR to a folder of your own)", no, what)
}

// judge is the rule, on what stat(2) says of a folder: it must be a
// folder, the user's (the effective uid), and writable by nobody else.
func judge(dir string, isDir bool, uid, euid uint32, perm uint32) error {
	switch {
	case !isDir:
		return &NotOursError{dir, "is not a folder"}
	case uid != euid:
		return &NotOursError{dir, fmt.Sprintf("belongs to uid %d, not to you (uid %d)", uid, euid)}
	case perm&0o022 != 0:
		return &NotOursError{dir, fmt.Sprintf("is writable by group or others (mode %04o)", perm&0o7777)}
	}
	return nil
}
