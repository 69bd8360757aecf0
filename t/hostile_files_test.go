package t

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOEverywhere: every program given a FIFO where it expects a file —
// a key, a state file, a terminal, an agent's config, the spool — refuses
// it at once or stops on SIGTERM; none is held in open(2) (ag-keys
// --verify FIFO hung at start and ignored SIGTERM).
func TestFIFOEverywhere(t *testing.T) {
	work := t.TempDir()
	// One FIFO each: ag-fold replaces the state file it was given.
	n := 0
	newFIFO := func() string {
		n++
		p := filepath.Join(work, "fifo"+strconv.Itoa(n))
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
		return p
	}
	dir := filepath.Join(work, "ag")
	os.Mkdir(dir, 0o700)
	if err := syscall.Mkfifo(filepath.Join(dir, "spool.ndjson"), 0o600); err != nil {
		t.Fatal(err)
	}
	claudeDir := filepath.Join(work, "claude")
	os.Mkdir(claudeDir, 0o700)
	if err := syscall.Mkfifo(filepath.Join(claudeDir, "settings.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	state := `{"v":1,"t":"` + time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + `","kind":"state","agent":"claude","session":"s","src":"fold","pane":"%1","status":"waiting","attention":"permission","tool":"Bash","gen":1,"token":"1.1"}` + "\n"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ag-keys --verify", []string{"ag-keys", "--verify", newFIFO()}},
		{"ag-keys --state", []string{"ag-keys", "--state", newFIFO()}},
		{"ag-keys approve --state", []string{"ag-keys", "approve", "--pane", "%1", "--state", newFIFO()}},
		{"ag-notify --sign", []string{"ag-notify", "--sign", newFIFO(), "--backend", "exec", "--exec", "true"}},
		{"ag-notify --osc-tty", []string{"ag-notify", "--backend", "osc", "--osc-tty", newFIFO(), "--no-quiet", "-S", filepath.Join(work, "no-tmux")}},
		{"ag-fold --state", []string{"ag-fold", "--state", newFIFO(), "--check", "0"}},
		{"ag-fold --snapshot --state", []string{"ag-fold", "--snapshot", "--state", newFIFO()}},
		{"ag-detect --pane --state", []string{"ag-detect", "--pane", "%1", "--state", newFIFO()}},
		{"ag-tail --follow, the spool a FIFO", []string{"ag-tail", "--follow"}},
		{"ag-hook-setup, settings.json a FIFO", []string{"ag-hook-setup", "install", "--agent", "claude", "--force"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := exec.Command(filepath.Join(binDir, tc.args[0]), tc.args[1:]...)
			c.Env = append(withoutTMUX(os.Environ()), "AG_DIR="+dir, "HOME="+work, "CLAUDE_CONFIG_DIR="+claudeDir)
			in, err := c.StdinPipe() // held open: only a signal or a refusal ends the run
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			var stdout, stderr bytes.Buffer
			c.Stdout, c.Stderr = &stdout, &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			in.Write([]byte(state))
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			select {
			case err := <-done: // refused at once
				var ee *exec.ExitError
				said := stderr.String() + stdout.String() // ag-keys says it in its keys event
				if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(said, "regular file") && !strings.Contains(said, "not a terminal") {
					t.Errorf("ended at once with %v; said %q", err, said)
				}
				return
			case <-time.After(500 * time.Millisecond):
			}
			c.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-done:
				// 143 from a program that handles the signal; killed by
				// it from one that leaves it to the system.
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 143 && !strings.Contains(err.Error(), "signal: terminated") {
					t.Errorf("after SIGTERM: %v; want exit 143; stderr %q", err, stderr.String())
				}
			case <-time.After(5 * time.Second):
				c.Process.Kill()
				t.Errorf("still running 5 s after SIGTERM; stderr %q", stderr.String())
			}
		})
	}
}
