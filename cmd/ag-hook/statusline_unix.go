//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the user's statusLine command in a process group of its
// own and makes cancelling kill that whole group, so a pipeline or a
// background child cannot outlive the timeout holding Claude's pipes.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
