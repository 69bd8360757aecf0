package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// setupName is the program that runs ag-hook's config commands and help.
const setupName = "ag-hook-setup"

// hookExeEnv tells ag-hook-setup this program's path: what install writes.
const hookExeEnv = "AG_HOOK_EXE"

// execSetup replaces this process with ag-hook-setup, same arguments and
// descriptors: it returns only if that cannot start.
func (c *cmd) execSetup(args []string) int {
	setup, err := setupPath()
	if err != nil {
		c.errorf("%v", err)
		return exitError
	}
	// Ours replaces any inherited one (the first of a name wins in Go).
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, hookExeEnv+"=") })
	if self, err := selfPath(os.Args[0]); err == nil {
		env = append(env, hookExeEnv+"="+self)
	}
	err = syscall.Exec(setup, append([]string{"ag-hook"}, args...), env)
	c.errorf("running %s: %v", setup, err)
	return exitError
}

// setupPath finds ag-hook-setup beside this program (make and go install
// put them together), else on $PATH.
func setupPath() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), setupName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(setupName)
	if err != nil {
		return "", fmt.Errorf("%s, which runs install, uninstall, status and --help, is neither beside ag-hook nor on $PATH: install ag again (make, or go install ./cmd/...)", setupName)
	}
	return p, nil
}

// selfPath is this program's absolute path, as it was run when that names
// the same file (so a stable symlink such as /usr/local/bin/ag-hook is
// written rather than the versioned file it points to), else the
// executable's own path.
func selfPath(argv0 string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this program's path: %w", err)
	}
	p := argv0
	if !strings.Contains(p, "/") {
		if p, err = exec.LookPath(argv0); err != nil {
			return exe, nil
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		a, err1 := os.Stat(abs)
		b, err2 := os.Stat(exe)
		if err1 == nil && err2 == nil && os.SameFile(a, b) {
			return abs, nil
		}
	}
	return exe, nil
}
