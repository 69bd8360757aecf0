package t

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/filters/table"
)

// ag-fold --snapshot --table on a real terminal (a pty from script(1)):
// coloured, fitted to the terminal's width whatever $COLUMNS says, and
// plain with NO_COLOR.
func TestTableOnTerminal(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1)")
	}
	work := t.TempDir()
	states, err := os.ReadFile("../filters/table/testdata/many.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	body := `{"v":1,"t":"2026-11-30T10:00:00.000Z","sessions":[` + "\n" +
		strings.ReplaceAll(strings.TrimSpace(string(states)), "}\n{", "},\n{") + "\n]}\n"
	if err := os.WriteFile(filepath.Join(work, "state.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	// Kept by a running ag-fold (this test process), as keep does in the
	// scripts: a file nobody keeps is read back stale.
	f, err := state.Load(filepath.Join(work, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := state.Write(filepath.Join(work, "state.json"), f.T, state.Self(0), f.Sessions); err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) string {
		t.Helper()
		cmd := exec.Command("script", "-qec", "stty cols 90 rows 40; ag-fold --snapshot --table", "/dev/null")
		cmd.Env = append(os.Environ(), "AG_DIR="+work, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
			"COLUMNS=200", "TERM=xterm-256color")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("script: %v\n%s", err, out)
		}
		return strings.ReplaceAll(string(out), "\r\n", "\n")
	}
	out := run("NO_COLOR=")
	for _, code := range []string{"\x1b[1;33m⏳ waiting\x1b[0m", "\x1b[31m✗ failed\x1b[0m", "\x1b[36m⚙ working\x1b[0m", "\x1b[32m✓ done\x1b[0m", "\x1b[1mAGENT\x1b[0m"} {
		if !strings.Contains(out, code) {
			t.Errorf("on a terminal the table lacks %q:\n%s", code, out)
		}
	}
	lines := strings.Split(strings.TrimSuffix(screenText(out), "\n"), "\n")
	if len(lines) != 14 {
		t.Errorf("%d lines, want a header and 13 sessions:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if w := table.Width(l); w > 90 {
			t.Errorf("a line %d columns wide on a 90-column terminal: %q", w, l)
		}
	}
	if plain := run("NO_COLOR=1"); strings.Contains(plain, "\x1b[") || plain != screenText(out) {
		t.Errorf("NO_COLOR: want the same table without colour, got:\n%s", plain)
	}
}
