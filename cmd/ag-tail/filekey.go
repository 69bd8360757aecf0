package main

import (
	"fmt"
	"os"
	"syscall"
)

// fileKey identifies a file across renames (device and inode).
func fileKey(info os.FileInfo) string {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	}
	return info.Name()
}
