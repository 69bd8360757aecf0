//go:build !unix

package main

import "os/exec"

// ownGroup: no process groups here; cancelling kills the command alone.
func ownGroup(*exec.Cmd) {}
