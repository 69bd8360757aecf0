//go:build unix

package paths

import (
	"os"
	"syscall"
)

// CheckDir reports whether dir may hold ag's files: a folder of the
// user's, writable by nobody else (a NotOursError says why not). A folder
// that is not there is fine: ag makes it, 0700.
func CheckDir(dir string) error {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(dir, &st)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.ENOENT {
			return nil
		}
		if err != nil {
			return &os.PathError{Op: "stat", Path: dir, Err: err}
		}
		break
	}
	return judge(dir, st.Mode&syscall.S_IFMT == syscall.S_IFDIR, st.Uid, uint32(os.Geteuid()), uint32(st.Mode))
}
