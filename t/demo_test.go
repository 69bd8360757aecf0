package t

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDemo runs what make demo runs (contrib/demo/ag-demo, with the
// programs this test built), headless as a user would: its client attaches
// in a pane of an outer tmux server, whose screen is what the user sees.
// The popup asks about the waiting agent; "a" and Enter there types the
// approve key into the stand-in agent's pane, which runs the command and
// finishes; an answer typed in the demo's shell reaches the other one; F12
// leaves, and no server, process or file of the demo is left.
func TestDemo(t *testing.T) {
	need(t, "builds the demo's stand-in agent and runs it", "tmux", "bash", "go")
	t.Parallel()
	dir, err := os.MkdirTemp("", "agd") // short: tmux sockets live under it
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	demo, err := filepath.Abs("../contrib/demo/ag-demo")
	if err != nil {
		t.Fatal(err)
	}
	outer := filepath.Join(dir, "o")
	tm := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("tmux", append([]string{"-u", "-S", outer}, args...)...)
		cmd.Env = append(withoutTMUX(os.Environ()), "TMPDIR="+dir, "LANG=C.UTF-8")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tm("-f", "/dev/null", "new-session", "-d", "-s", "o", "-x", "140", "-y", "40",
		"sh -c '"+demo+" "+binDir+"; echo DEMO-EXIT $?; sleep 60'")
	defer exec.Command("tmux", "-S", outer, "kill-server").Run()
	screen := func() string { return tm("capture-pane", "-p", "-t", "o") }
	waitFor := func(what string, d time.Duration, ok func(string) bool) string {
		t.Helper()
		var s string
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if s = screen(); ok(s) {
				return s
			}
		}
		t.Fatalf("the demo never showed %s; its screen:\n%s", what, s)
		return ""
	}
	has := func(parts ...string) func(string) bool {
		return func(s string) bool {
			for _, p := range parts {
				if !strings.Contains(s, p) {
					return false
				}
			}
			return true
		}
	}

	// What the user sees: the popup over the session, the borders, the
	// count, the table, the prompt, the stand-in agents' own screens.
	waitFor("the popup", 90*time.Second, has("Needs permission: Bash", "[a] Approve  [d] Deny"))
	// The table pane clears and prints again every second: one screen
	// must show it whole.
	everyAgent := has("── 0 claude ⏳ Bash", "── 1 codex ⚙ Bash", "── 2 claude ❓ AskUserQuestion",
		"Keep the old anchors as redirects?", "F12 leaves the demo", "1:infra  ✓")
	table := regexp.MustCompile(`claude +⏳ waiting +api:fix-release +%0 `)
	count := regexp.MustCompile(`⏳2 F12 leaves`)
	waitFor("every agent, in the table too", 20*time.Second, func(s string) bool {
		return everyAgent(s) && table.MatchString(s) && count.MatchString(s)
	})
	ws, _ := filepath.Glob(filepath.Join(dir, "ag-demo.*"))
	if len(ws) != 1 {
		t.Fatalf("the demo's folders in $TMPDIR: %q", ws)
	}
	w := ws[0]

	// a, Enter in the popup: Claude's approve key in the api pane, which
	// runs the command and finishes; every view follows.
	tm("send-keys", "-t", "o", "a", "Enter")
	waitFor("the agent's answer", 30*time.Second, func(s string) bool {
		return strings.Contains(s, "The release build passes now.") && regexp.MustCompile(`claude +✓ done +api:fix-release`).MatchString(s)
	})
	if b, _ := os.ReadFile(filepath.Join(w, "keys-api")); string(b) != "1\n" {
		t.Errorf("the api agent's pane got %q; want the approve key 1 alone", b)
	}

	// An answer typed in the demo's shell, through ag-keys.
	tm("send-keys", "-t", "o", "-l", "ag-keys answer Yes --pane %2")
	tm("send-keys", "-t", "o", "Enter")
	waitFor("the question answered", 30*time.Second, func(s string) bool {
		return regexp.MustCompile(`claude +✓ done +docs:main`).MatchString(s)
	})
	if b, _ := os.ReadFile(filepath.Join(w, "keys-docs")); string(b) != "1\n" {
		t.Errorf("the docs agent's pane got %q; want Yes's digit 1", b)
	}

	running := func() []string { return demoProcs(filepath.Join(w, "ag")) }
	if runtime.GOOS == "linux" && len(running()) == 0 {
		t.Fatal("no process of the demo found (the test looks for AG_DIR in their environment)")
	}
	// F12 leaves; the demo takes everything down.
	tm("send-keys", "-t", "o", "F12")
	waitFor("its end", 30*time.Second, has("DEMO-EXIT 0", "its tmux server, pipeline and files are gone"))
	if _, err := os.Stat(w); err == nil {
		t.Errorf("the demo left %s", w)
	}
	var left []string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if left = running(); len(left) == 0 {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("processes of the demo still run after it ended:\n%s", strings.Join(left, "\n"))
	}
}

// demoProcs lists the processes whose environment holds AG_DIR=agDir
// (Linux: /proc; elsewhere none are found).
func demoProcs(agDir string) []string {
	want := []byte("AG_DIR=" + agDir + "\x00")
	var out []string
	ps, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range ps {
		env, err := os.ReadFile(filepath.Join(p, "environ"))
		if err != nil || !strings.Contains(string(env), string(want)) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		out = append(out, filepath.Base(p)+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}
