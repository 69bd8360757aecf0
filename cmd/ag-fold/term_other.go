//go:build !unix

package main

import "io"

func terminal(io.Writer) (bool, int) { return false, 0 }
