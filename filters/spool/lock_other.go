//go:build !unix

package spool

import "os"

// Without flock, rotation may race a writer; appends stay whole.
func lock(*os.File) error { return nil }

func unlock(*os.File) {}
