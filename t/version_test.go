package t

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersionFormat: make and go install give a program the same
// --version, the module version the go command stamps from git.
func TestVersionFormat(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds from a clone")
	}
	for _, tool := range []string{"git", "make", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no ", tool)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	clone := filepath.Join(t.TempDir(), "ag")
	run := func(dir string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		// GOFLAGS may turn VCS stamping off (-buildvcs=false): the test is
		// about what a user's build gets.
		cmd.Env = append(append(os.Environ(), "GOFLAGS=-buildvcs=auto"), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(root, nil, "git", "clone", "-q", "--no-hardlinks", root, clone)
	run(clone, nil, "make", "build", "PROGRAMS=ag-fold", "FASTSTART=")
	made := run(clone, nil, filepath.Join(clone, "bin", "ag-fold"), "--version")
	gobin := t.TempDir()
	// -trimpath, as make builds: the clone's packages are then the ones the
	// build cache already holds (compiled again they cost half a minute
	// on a loaded machine), and the version is stamped all the same.
	run(clone, []string{"GOBIN=" + gobin, "GOFLAGS=-buildvcs=auto -trimpath"}, "go", "install", "./cmd/ag-fold")
	installed := run(clone, nil, filepath.Join(gobin, "ag-fold"), "--version")
	if made != installed {
		t.Errorf("make: %q, go install: %q", made, installed)
	}
	rev := run(clone, nil, "git", "rev-parse", "--short=12", "HEAD")
	if !regexp.MustCompile(`^ag-fold v[0-9]+\.[0-9]+\.[0-9]+(-[0-9.]*[0-9]{14}-` + rev + `)?$`).MatchString(made) {
		t.Errorf("version %q does not name the commit %s", made, rev)
	}
}
