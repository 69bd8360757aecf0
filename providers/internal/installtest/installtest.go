// Package installtest makes the home folder an installer's test runs
// in, for the providers' tests.
package installtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agwatch/ag/providers/provider"
)

// Home is a new home folder with the file src (a test's testdata; ""
// for none) at rel in it, the environment that names it as HOME, and the
// file's path.
func Home(t testing.TB, src, rel string) (provider.Env, string) {
	t.Helper()
	if src == "" {
		return HomeWith(t, "", rel)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	return HomeWith(t, string(b), rel)
}

// HomeWith is Home with the file's content given ("": no file).
func HomeWith(t testing.TB, content, rel string) (provider.Env, string) {
	t.Helper()
	h := t.TempDir()
	path := filepath.Join(h, rel)
	if content != "" {
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return func(k string) string {
		if k == "HOME" {
			return h
		}
		return ""
	}, path
}

// Read is the file at path; a failure fails the test.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
