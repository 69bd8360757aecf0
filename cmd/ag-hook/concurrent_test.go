package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hookProcess is a real ag-hook process (this test binary in its ag-hook
// role, see TestMain) reading payload on stdin.
func hookProcess(t *testing.T, dir, payload string, extraEnv ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command(os.Args[0], "claude")
	c.Env = append(os.Environ(), "AG_HOOK_TEST_MAIN=1", "AG_DIR="+dir)
	c.Env = append(c.Env, extraEnv...)
	c.Stdin = strings.NewReader(payload)
	return c
}

// TestManyWriters: 200 ag-hook processes started at once leave exactly
// 200 intact lines, one per payload.
func TestManyWriters(t *testing.T) {
	const n = 200
	dir := filepath.Join(t.TempDir(), "ag")
	pad := strings.Repeat("x", 5000) // lines of ~5 KB: past a pipe's atomic size, PIPE_BUF
	var procs []*exec.Cmd
	for i := 0; i < n; i++ {
		p := fmt.Sprintf(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_%03d","transcript_path":"/%s","tool_input":{"command":"echo hi"}}`, i, pad)
		c := hookProcess(t, dir, p)
		var out strings.Builder
		c.Stdout = &out
		procs = append(procs, c)
	}
	for _, c := range procs {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range procs {
		if err := c.Wait(); err != nil {
			t.Errorf("process %d: %v", i, err)
		}
		if out := c.Stdout.(*strings.Builder).String(); out != "" {
			t.Errorf("process %d wrote %q to stdout", i, out)
		}
	}
	evs := spoolLines(t, dir)
	if len(evs) != n {
		t.Fatalf("%d lines in the spool, want %d", len(evs), n)
	}
	seen := map[string]bool{}
	for _, e := range evs {
		if seen[e.ToolID] || !strings.HasPrefix(e.ToolID, "toolu_") || e.Transcript != "/"+pad {
			t.Errorf("bad or repeated event: %s %d", e.ToolID, len(e.Transcript))
		}
		seen[e.ToolID] = true
	}
	if fi, _ := os.Stat(filepath.Join(dir, "spool.ndjson")); fi.Mode().Perm() != 0o600 {
		t.Errorf("spool mode %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("spool dir mode %v", fi.Mode().Perm())
	}
}
