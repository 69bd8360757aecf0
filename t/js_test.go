package t

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJS runs the plugin's and the extension's tests (t/js, node's test
// runner) against the files `ag-hook install` writes, which run the real
// ag-hook of this build into a real spool.
func TestJS(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	home, agDir := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HOME="+home, "AG_DIR="+agDir, "XDG_CONFIG_HOME=", "PI_CODING_AGENT_DIR=", "PI_CONFIG_DIR=", "AG_DEBUG=")
	for _, agent := range []string{"opencode", "pi", "omp"} {
		// --force: the agents need not be on this machine to test the files
		c := exec.Command(filepath.Join(binDir, "ag-hook"), "install", "--agent", agent, "--force")
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("install %s: %v\n%s", agent, err, out)
		}
	}
	env = append(env,
		"AG_JS_OPENCODE="+filepath.Join(home, ".config/opencode/plugins/ag.js"),
		"AG_JS_PI="+filepath.Join(home, ".pi/agent/extensions/ag.js"),
		"AG_JS_OMP="+filepath.Join(home, ".omp/agent/extensions/ag.js"))
	files, _ := filepath.Glob("js/*.test.mjs")
	c := exec.Command(node, append([]string{"--test", "--test-concurrency=1"}, files...)...)
	c.Env = env
	start := time.Now()
	out, err := c.CombinedOutput()
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if l := sc.Text(); strings.Contains(l, "µs") || strings.HasPrefix(l, "# pass") || strings.HasPrefix(l, "# fail") {
			t.Log(l)
		}
	}
	if err != nil {
		t.Fatalf("node --test: %v (%s)\n%s", err, time.Since(start), out)
	}
}
