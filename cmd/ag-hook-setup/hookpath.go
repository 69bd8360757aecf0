package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agwatch/ag/filters/paths"
)

// hookWarning says — after "hooks run " or "this ag-hook is " — why hooks
// running path will break although they work today, or "" when nothing is
// wrong with it: the file is missing or not executable, or it lies in a
// build tree — a checkout's bin/ (make clean or
// moving the clone breaks every agent's hooks, silently: a hook's failure
// reaches no one) or Go's build cache (go run).
func hookWarning(path string, env paths.Env) string {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return path + ", which does not exist: run `ag-hook install` again from an installed ag-hook (make install)"
	case fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
		return path + ", which is not an executable file"
	}
	if where := buildTree(path, env); where != "" {
		return path + ", inside " + where + ": a rebuild, make clean or moving it breaks hooks that run it; make install, then run ag-hook install from the installed ag-hook"
	}
	return ""
}

// buildTree names the build tree path lies in, or "".
func buildTree(path string, env paths.Env) string {
	if c := env("GOCACHE"); c != "" && strings.HasPrefix(path, filepath.Clean(c)+string(filepath.Separator)) {
		return "Go's build cache"
	}
	for _, el := range strings.Split(filepath.ToSlash(path), "/") {
		// go run and go test link into $TMPDIR/go-build*/; the cache is
		// …/go-build/.
		if strings.HasPrefix(el, "go-build") {
			return "Go's build cache"
		}
	}
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "bin" {
		return ""
	}
	root := filepath.Dir(dir)
	for _, mark := range []string{"go.mod", ".git"} {
		if _, err := os.Stat(filepath.Join(root, mark)); err == nil {
			return "a checkout's bin/ (" + root + ")"
		}
	}
	return ""
}
