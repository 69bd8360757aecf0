package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHookWarning(t *testing.T) {
	root := t.TempDir()
	file := func(rel string, mode os.FileMode) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file("clone/go.mod", 0o644)
	file("worktree/.git", 0o644) // a git worktree's .git is a file
	cache := filepath.Join(root, "cache")
	tests := []struct {
		name, path string
		want       string // in the warning; "" none
	}{
		{"installed", file("prefix/bin/ag-hook", 0o755), ""},
		{"go install", file("go/bin/ag-hook", 0o755), ""},
		{"a bin/ beside nothing of a checkout", file("opt/bin/ag-hook", 0o755), ""},
		{"missing", filepath.Join(root, "gone/bin/ag-hook"), "does not exist"},
		{"not executable", file("noexec/ag-hook", 0o644), "not an executable"},
		{"a directory", filepath.Join(root, "clone"), "not an executable"},
		{"a checkout's bin/", file("clone/bin/ag-hook", 0o755), "a checkout's bin/ (" + filepath.Join(root, "clone") + ")"},
		{"a worktree's bin/", file("worktree/bin/ag-hook", 0o755), "a checkout's bin/"},
		{"go run", file("tmp/go-build2718281/b001/exe/ag-hook", 0o755), "Go's build cache"},
		{"GOCACHE", file("cache/ab/ag-hook", 0o755), "Go's build cache"},
	}
	env := func(k string) string {
		if k == "GOCACHE" {
			return cache
		}
		return ""
	}
	for _, tc := range tests {
		got := hookWarning(tc.path, env)
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: warning %q, want none", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: warning %q, want one saying %q", tc.name, got, tc.want)
		}
	}
}

// status and install warn once about a hook in a build tree; a status
// with nothing installed has nothing to warn about.
func TestStatusWarnsOfBuildTree(t *testing.T) {
	home := t.TempDir()
	clone := t.TempDir()
	if err := os.WriteFile(filepath.Join(clone, "go.mod"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(clone, "bin", "ag-hook")
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hook, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home}
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700) // Claude is on this machine
	if r := try(t, env, "status", "--hook", hook); strings.Contains(r.stdout, "warning") {
		t.Errorf("status with nothing installed warns:\n%s", r.stdout)
	}
	r := try(t, env, "install", "--agent", "claude", "--hook", hook)
	if r.code != 0 || strings.Count(r.stdout, "warning: hooks run "+hook+", inside a checkout's bin/") != 1 {
		t.Errorf("install: code %d, stdout:\n%s", r.code, r.stdout)
	}
	r = try(t, env, "status", "--hook", hook)
	if r.code != 0 || strings.Count(r.stdout, "\nwarning: this ag-hook is "+hook+", inside a checkout's bin/") != 1 {
		t.Errorf("status: code %d, stdout:\n%s", r.code, r.stdout)
	}
}
