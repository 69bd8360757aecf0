//go:build unix

package spool

import (
	"io"
	"os"
	"syscall"
)

// file is the spool opened for appending, as a bare descriptor: an
// *os.File would first try to add it to the runtime's poller, which costs
// a hook several system calls and a thread wake-up for nothing.
type file struct{ fd int }

func openAppend(path string) (file, error) {
	for {
		// O_NOFOLLOW: a symlink planted in the spool's place is not
		// followed (ELOOP); O_NONBLOCK: a FIFO there does not hold the
		// hook until the agent's hook timeout (stat refuses it next).
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, uint32(FileMode))
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.ELOOP || err == syscall.ENXIO { // a symlink; a FIFO nobody reads
			return file{-1}, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
		}
		if err != nil {
			return file{-1}, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return file{fd}, nil
	}
}

func (f file) close() { syscall.Close(f.fd) }

// lock takes an exclusive flock. The lock belongs to the open file, so
// separate opens in one process contend like separate processes.
func (f file) lock() error {
	for {
		err := syscall.Flock(f.fd, syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func (f file) unlock() { syscall.Flock(f.fd, syscall.LOCK_UN) }

// stat returns the open file's size and whether path still names it; a
// file that is not a regular one of the user's is ErrNotRegular.
func (f file) stat(path string) (size int64, same bool, err error) {
	var fs, ps syscall.Stat_t
	if err := syscall.Fstat(f.fd, &fs); err != nil {
		return 0, false, err
	}
	if fs.Mode&syscall.S_IFMT != syscall.S_IFREG || fs.Uid != uint32(os.Geteuid()) {
		return 0, false, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	if err := syscall.Lstat(path, &ps); err != nil {
		return 0, false, nil
	}
	return fs.Size, fs.Dev == ps.Dev && fs.Ino == ps.Ino, nil
}

// write writes b whole; O_APPEND puts each write(2) at the end.
func (f file) write(b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(f.fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		b = b[n:]
	}
	return nil
}

// owned reports whether fi (an Lstat) is the user's.
func owned(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Uid == uint32(os.Geteuid())
}
