//go:build e2e

package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// CacheDir is where npm installs are kept between runs: $AG_E2E_CACHE, else
// the repository's .cache (git-ignored).
func CacheDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("AG_E2E_CACHE"); d != "" {
		return d
	}
	d, err := filepath.Abs(filepath.Join("..", "..", ".cache"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var installMu sync.Mutex

// NPMPackage is an agent CLI pinned to one version.
type NPMPackage struct {
	Name    string // @anthropic-ai/claude-code
	Version string // exact, e.g. 2.1.197
	Bin     string // the command under node_modules/.bin; "" for a library
	Dir     string // the cache folder's name, e.g. claude-2.1.197
	// Save keeps npm's package.json and package-lock.json (--save-exact):
	// a folder the agent itself checks with npm (OpenCode's plugin deps).
	Save bool
	// Also are packages installed beside it, "name@version": what its
	// command needs and does not depend on (omp's shim runs bun).
	Also []string
}

// complete reports whether the cache folder final holds pkg and every
// package installed beside it.
func (pkg NPMPackage) complete(final, bin string) bool {
	if _, err := os.Stat(bin); err != nil {
		return false
	}
	for _, a := range pkg.Also {
		name := a[:strings.LastIndex(a, "@")]
		if _, err := os.Stat(filepath.Join(final, "node_modules", name, "package.json")); err != nil {
			return false
		}
	}
	return true
}

// Install returns the path of pkg's command, installing it with
// `npm install --prefix <cache>/<Dir>` the first time. The install goes to
// a temporary folder renamed into place when complete, so an interrupted
// install is never taken for a good one. npm failing fails the test
// loudly: CI reaches the npm registry, so a failure is a real problem.
func Install(t testing.TB, pkg NPMPackage) string {
	t.Helper()
	pinned := pkg.Version
	pkg = Newest(t, pkg) // make e2e-newest: the registry's newest instead
	// Parallel tests wait for one install rather than race npm.
	installMu.Lock()
	defer installMu.Unlock()
	cache := CacheDir(t)
	final := filepath.Join(cache, pkg.Dir)
	bin := filepath.Join(final, "node_modules", ".bin", pkg.Bin)
	if pkg.Bin == "" { // a library: its folder is what is returned
		bin = filepath.Join(final, "node_modules", pkg.Name)
	}
	if pkg.complete(final, bin) {
		if pkg.Version != pinned {
			installedAt(bin, pkg.Version)
		}
		return bin
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm is needed to install %s@%s (.ci/run installs nodejs/npm): %v", pkg.Name, pkg.Version, err)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(cache, "."+pkg.Dir+".tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	save := "--no-save"
	if pkg.Save {
		save = "--save-exact"
	}
	// npm's own cache would keep a second copy of every tarball in
	// ~/.npm (1.1 GB for the seven agents): the cache folder already
	// keeps the installs, so npm gets a throwaway one inside tmp.
	npmCache := filepath.Join(tmp, ".npm")
	args := []string{"install", "--prefix", tmp, "--cache", npmCache, "--no-audit", "--no-fund", save, pkg.Name + "@" + pkg.Version}
	cmd := exec.CommandContext(ctx, npm, append(args, pkg.Also...)...)
	out, err := cmd.CombinedOutput()
	os.RemoveAll(npmCache)
	if err != nil {
		if pkg.Version != pinned && notOnRegistry(out) {
			// A newest release that names versions of its own packages
			// the registry does not hold (omp 18.3.4): nobody can install
			// it; the lane says so rather than fail on it.
			t.Skipf("make e2e-newest: %s@%s cannot be installed from npm:\n%s", pkg.Name, pkg.Version, out)
		}
		t.Fatalf("npm install %s@%s failed: %v\n%s", pkg.Name, pkg.Version, err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, strings.TrimPrefix(bin, final))); err != nil {
		t.Fatalf("npm install %s@%s left no .bin/%s:\n%s", pkg.Name, pkg.Version, pkg.Bin, out)
	}
	if !pkg.complete(tmp, filepath.Join(tmp, strings.TrimPrefix(bin, final))) {
		t.Fatalf("npm install %s@%s %v left a package out:\n%s", pkg.Name, pkg.Version, pkg.Also, out)
	}
	if _, err := os.Stat(final); err == nil && !pkg.complete(final, bin) {
		os.RemoveAll(final) // an older, incomplete install
	}
	if err := os.Rename(tmp, final); err != nil {
		// Someone else (a parallel package's test) finished first: use theirs.
		if _, err2 := os.Stat(bin); err2 != nil {
			t.Fatalf("installing into %s: %v", final, errors.Join(err, err2))
		}
	}
	t.Logf("installed %s@%s into %s in %s", pkg.Name, pkg.Version, final, time.Since(start).Round(time.Millisecond))
	if pkg.Version != pinned {
		installedAt(bin, pkg.Version)
	}
	return bin
}

// CheckVersion runs `bin --version` and fails unless it mentions version
// (or, lifted by NewestVar, the version Install put there), so a stale or
// broken install is caught before any screen is read.
func CheckVersion(t testing.TB, bin, version string) {
	t.Helper()
	if v := versionAt(bin); v != "" {
		version = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), version) {
		t.Fatalf("%s --version: %v: %q (want %s; delete the cache folder to reinstall)", bin, err, out, version)
	}
}
