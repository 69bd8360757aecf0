package t

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUninstallUnhooks: make install, ag-hook install for every agent, make
// uninstall — as a user would, in a fresh HOME and a temporary PREFIX. No
// agent is left with a handler that runs a program that is gone, every
// file ag changed is back byte for byte with no backup beside it, the
// folder ag made for an agent is gone, and what stays is said with its
// path; PURGE=1 removes that too. An agent config ag cannot read stops the
// uninstall before anything is removed, naming the command to run.
func TestUninstallUnhooks(t *testing.T) {
	need(t, "builds and installs ag", "make", "sh")
	t.Parallel()
	inCheckout.Lock() // make builds into the checkout's bin/: one at a time
	defer inCheckout.Unlock()
	prefix := filepath.Join(t.TempDir(), "pre fix")
	home := t.TempDir()
	u := newUserManager(t, home)
	mine := []byte("{\n  \"model\": \"opus\",\n  \"hooks\": {}\n}\n")
	files := map[string][]byte{
		".claude/settings.json": mine,
		".bashrc":               []byte(". " + shellQuote(filepath.Join(prefix, "share/ag/shell/ag.bash")) + "\nalias ll='ls -l'\n"),
	}
	for _, d := range []string{".codex", ".gemini", ".copilot", ".config/opencode", ".pi/agent"} {
		os.MkdirAll(filepath.Join(home, d), 0o700) // these agents are on this machine
	}
	for name, b := range files {
		os.MkdirAll(filepath.Join(home, filepath.Dir(name)), 0o700)
		if err := os.WriteFile(filepath.Join(home, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	q := shellQuote(prefix)
	if out := u.shell(t, "..", "make install PREFIX="+q); !strings.Contains(out, "warning: "+filepath.Join(prefix, "bin")+" is not on your PATH") {
		t.Errorf("make install does not say its bin/ is not on PATH:\n%s", out)
	}
	hook := shellQuote(filepath.Join(prefix, "bin", "ag-hook"))
	u.shell(t, home, hook+" install --agent claude --agent codex --agent gemini --agent copilot --agent opencode --agent pi")
	u.shell(t, home, hook+" install --agent cursor --force")                                 // ag makes ~/.cursor
	u.shell(t, home, `echo '{"session_id":"s","hook_event_name":"Stop"}' | `+hook+" claude") // a spool
	if !bytes.Contains(grepTree(t, home, prefix), []byte("ag-hook")) {
		t.Fatal("ag-hook install wrote no hook that runs the installed ag-hook")
	}

	// A config ag cannot read: nothing is removed, and the one command to
	// run is named.
	settings := filepath.Join(home, ".claude", "settings.json")
	good, _ := os.ReadFile(settings)
	os.WriteFile(settings, []byte("{ not json"), 0o600)
	out, err := u.command("..", "sh", "-c", "make uninstall PREFIX="+q).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "nothing was removed") || !strings.Contains(string(out), filepath.Join(prefix, "bin", "ag-hook")+" uninstall --all") {
		t.Errorf("make uninstall with a broken settings.json: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(prefix, "bin", "ag-hook")); err != nil {
		t.Errorf("a refused make uninstall removed programs: %v", err)
	}
	os.WriteFile(settings, good, 0o600)

	out = []byte(u.shell(t, "..", "make uninstall PREFIX="+q))
	t.Logf("make uninstall:\n%s", out)
	if refs := grepTree(t, home, prefix); len(refs) > 0 {
		t.Errorf("after make uninstall, files in HOME still run programs of %s:\n%s", prefix, refs)
	}
	if b, _ := os.ReadFile(settings); !bytes.Equal(b, mine) {
		t.Errorf("~/.claude/settings.json is not the user's file again:\n%s", b)
	}
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".ag-backup") {
			b, _ := os.ReadFile(p)
			now, _ := os.ReadFile(strings.TrimSuffix(p, ".ag-backup"))
			if bytes.Equal(b, now) {
				t.Errorf("%s is left, the same as its file", p)
			}
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(home, ".cursor")); err == nil {
		t.Error("~/.cursor, which ag made, is left")
	}
	state := filepath.Join(home, ".local", "state", "ag")
	for _, want := range []string{"claude: hooks removed", "left " + state + ": the spool", filepath.Join(home, ".bashrc") + ":1:", "PURGE=1 removes"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("make uninstall does not say %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(prefix, "bin")); err == nil {
		if left, _ := os.ReadDir(filepath.Join(prefix, "bin")); len(left) > 0 {
			t.Errorf("make uninstall left programs: %v", left)
		}
	}

	// PURGE=1, with nothing installed any more: the spool goes.
	out = []byte(u.shell(t, "..", "make uninstall PURGE=1 PREFIX="+q))
	if _, err := os.Stat(state); err == nil || !strings.Contains(string(out), "removed "+state) {
		t.Errorf("make uninstall PURGE=1 left %s:\n%s", state, out)
	}
}

// grepTree lists the lines of files under dir that name prefix.
func grepTree(t *testing.T, dir, prefix string) []byte {
	t.Helper()
	var out []byte
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || fi.Size() > 1<<20 || strings.Contains(p, "/.local/state/ag/") || strings.HasSuffix(p, "/.bashrc") {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, l := range bytes.Split(b, []byte("\n")) {
			if bytes.Contains(l, []byte(prefix)) {
				out = append(out, []byte(p+": "+string(l)+"\n")...)
			}
		}
		return nil
	})
	return out
}
