package t

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/t/internal/gencorpus"
)

// corpusHome is a home with a generated Claude corpus (sessions that
// repeat each other's responses, sub-agent files), Codex rollouts, a
// spool with a bad line, and a file that is not JSON Lines at all.
func corpusHome(t *testing.T, mb int64) (home string, env []string) {
	home = t.TempDir()
	claude := filepath.Join(home, "claude")
	if _, err := gencorpus.Generate(claude, mb<<20, 3); err != nil {
		t.Fatal(err)
	}
	day := filepath.Join(home, ".codex", "sessions", "2026", "11", "30")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	rollouts, _ := filepath.Glob("../providers/codex/testdata/rollout-*.jsonl")
	for _, r := range rollouts {
		b, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(day, filepath.Base(r)), b, 0o644)
	}
	ag := filepath.Join(home, ".ag")
	os.MkdirAll(ag, 0o700)
	os.WriteFile(filepath.Join(ag, "spool.ndjson"), []byte(
		`{"v":1,"t":"2026-11-20T09:00:00.000Z","kind":"session.start","agent":"claude","session":"s1","src":"hook","id":"h1"}`+"\n"+
			"not an event\n"), 0o600)
	junk := filepath.Join(claude, "projects", "-junk", "00000000-0000-4000-8000-000000000000.jsonl")
	os.MkdirAll(filepath.Dir(junk), 0o755)
	os.WriteFile(junk, bytes.Repeat([]byte("\x00\x01 not json\n"), 1000), 0o644)
	return home, []string{"HOME=" + home, "AG_DIR=" + ag, "CLAUDE_CONFIG_DIR=" + claude, "CODEX_HOME="}
}

func tailCmd(env []string, procs string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(binDir, "ag-tail"), args...)
	cmd.Env = append(os.Environ(), append(env, "GOMAXPROCS="+procs)...)
	return cmd
}

// TestReplaySameOnEveryCore: ag-tail --once, and the replay of --follow,
// write the same bytes (stdout and stderr) on one core as on four.
func TestReplaySameOnEveryCore(t *testing.T) {
	t.Parallel()
	_, env := corpusHome(t, 24)
	var outs, errs []string
	var once, onceErr string
	for _, args := range [][]string{{"--once"}, {"--once", "--where", `.kind != "meter" or .tokens.out > 100`}} {
		outs, errs = outs[:0], errs[:0]
		for _, procs := range []string{"1", "4", "2"} {
			var out, stderr bytes.Buffer
			cmd := tailCmd(env, procs, args...)
			cmd.Stdout, cmd.Stderr = &out, &stderr
			// Exit 2: the spool's bad line and the stray file were said.
			if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 {
				t.Fatalf("%v GOMAXPROCS=%s: %v\n%s", args, procs, err, stderr.String())
			}
			outs, errs = append(outs, out.String()), append(errs, stderr.String())
		}
		if n := strings.Count(outs[0], "\n"); n < 5000 {
			t.Fatalf("%v: only %d events", args, n)
		}
		for i := 1; i < len(outs); i++ {
			if outs[i] != outs[0] {
				t.Errorf("%v: stdout differs between GOMAXPROCS=1 and run %d (%d vs %d bytes)", args, i, len(outs[0]), len(outs[i]))
			}
			if errs[i] != errs[0] {
				t.Errorf("%v: stderr differs:\n%s\n---\n%s", args, errs[0], errs[i])
			}
		}
		if once == "" {
			once, onceErr = outs[0], errs[0]
		}
	}
	// The codex rollouts and the spool are in it, and the junk file said once.
	if !strings.Contains(once, `"agent":"codex"`) || !strings.Contains(once, `"id":"h1"`) {
		t.Error("codex or spool events missing")
	}
	if strings.Count(onceErr, "\n") != 2 || !strings.Contains(onceErr, "spool.ndjson:2:") || !strings.Contains(onceErr, "-junk/") {
		t.Errorf("stderr:\n%s", onceErr)
	}

	// --follow replays what --once reads, byte for byte, on any core count.
	if _, err := os.Stat(filepath.Join(binDir, "ag-tail")); err != nil {
		t.Fatal(err)
	}
	for _, procs := range []string{"1", "4"} {
		out := filepath.Join(t.TempDir(), "out")
		f, _ := os.Create(out)
		cmd := tailCmd(env, procs, "--follow", "--replay")
		cmd.Stdout = f
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			b, _ := os.ReadFile(out)
			if len(b) >= len(once) || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		f.Close()
		b, _ := os.ReadFile(out)
		// Less the mark after the replay (the cursor's checkpoint).
		var replay []string
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if !strings.Contains(l, `"kind":"mark"`) {
				replay = append(replay, l)
			}
		}
		if b := strings.Join(replay, ""); b != once {
			t.Errorf("--follow replay with GOMAXPROCS=%s differs from --once (%d vs %d bytes)", procs, len(b), len(once))
		}
	}
}
