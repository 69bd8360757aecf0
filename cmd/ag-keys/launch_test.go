package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeClaude writes a claude on a private PATH that records its argv,
// NUL-separated, to argv.out in its working directory. It renames the file
// into place, so a reader never sees it half written.
func fakeClaude(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > argv.tmp && mv argv.tmp argv.out\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// shellsToType are the interactive shells a command is typed into.
func shellsToType(t *testing.T) map[string]string {
	out := map[string]string{}
	if _, err := exec.LookPath("sh"); err == nil {
		out["sh"] = "sh"
	}
	if _, err := exec.LookPath("bash"); err == nil {
		// Interactive bash: history expansion (!!) and readline are on.
		out["bash"] = "bash --norc --noprofile -i"
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		out["zsh"] = "zsh -f -i"
	}
	return out
}

func waitArgv(t *testing.T, dir string) []string {
	t.Helper()
	path := filepath.Join(dir, "argv.out")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the fake claude never ran")
	return nil
}

func checkNoCanary(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Fatal("PWNED exists: typed text escaped its quotes")
	}
}

const hostileID = `x'"$(touch PWNED)"!!;touch PWNED;'` + "`touch PWNED`"

const hostilePrompt = `it's $(touch PWNED) ` + "`touch PWNED`" + ` '; touch PWNED; ' $'\'; touch PWNED; #' \ !! {prompt} $HOME`

// resume and spawn type into a real interactive shell; the fake claude
// must receive the hostile id / prompt as exactly one argument and the
// canary must never appear.
func TestTypeIntoShells(t *testing.T) {
	s := newServer(t)
	bin := fakeClaude(t)
	for name, sh := range shellsToType(t) {
		t.Run(name, func(t *testing.T) {
			type tc struct {
				what string
				args []string
				want []string
			}
			transcript := filepath.Join(t.TempDir(), "it's a $(touch PWNED).jsonl")
			if err := os.WriteFile(transcript, []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, c := range []tc{
				{"resume from the state file", []string{"resume"}, []string{"--resume", hostileID}},
				{"resume with a model", []string{"resume", "--session", "abc-1", "--model", "opus"}, []string{"--resume", "abc-1", "--model", "opus"}},
				{"spawn with a hostile prompt", []string{"spawn", "--prompt", hostilePrompt, "--model", "claude-opus-4-1"}, []string{"--model", "claude-opus-4-1", hostilePrompt}},
				{"fork a hostile path", []string{"spawn", "--transcript", transcript}, []string{"--resume", transcript, "--fork-session"}},
			} {
				t.Run(c.what, func(t *testing.T) {
					s := s.with(t)
					dir := t.TempDir()
					pane := s.shellWindow(dir, []string{"PATH=" + bin + ":" + os.Getenv("PATH")}, sh, name)
					st := stateFor(pane, "gone", "")
					st.Session = hostileID
					sf := writeState(t, t.TempDir(), st)
					code, evs, stderr := s.runKeys(sf, "", append(c.args, "--pane", pane)...)
					if code != 0 || len(evs) != 1 || evs[0].Status != "sent" {
						t.Fatalf("exit %d %+v %s", code, evs, stderr)
					}
					if !strings.HasPrefix(evs[0].Text, `"command claude `) || !strings.HasSuffix(evs[0].Text, ", 150ms, Enter") {
						t.Errorf("keys text %q", evs[0].Text)
					}
					got := waitArgv(t, dir)
					if strings.Join(got, "\x00") != strings.Join(c.want, "\x00") {
						t.Errorf("claude ran with %q; want %q", got, c.want)
					}
					checkNoCanary(t, dir)
				})
			}
		})
	}
}

func TestLaunchRefusals(t *testing.T) {
	s := newServer(t)
	a := s.agent()
	shPane := s.shellWindow(s.dir, nil, "sh", "sh")
	sf := writeState(t, t.TempDir(), stateFor(a.pane, "gone", ""))
	for _, c := range []struct {
		name   string
		args   []string
		reason string
	}{
		{"resume into a pane running the agent", []string{"resume", "--pane", a.pane}, "not a POSIX shell"},
		{"spawn into a pane running the agent", []string{"spawn", "--prompt", "hi", "--pane", a.pane}, "not a POSIX shell"},
		{"spawn a prompt with a newline", []string{"spawn", "--prompt", "a\nb", "--pane", shPane}, "control character"},
		{"spawn a bad model", []string{"spawn", "--prompt", "hi", "--model", "opus;id", "--pane", shPane}, "model"},
		{"resume an id with a newline", []string{"resume", "--session", "a\nb", "--pane", shPane}, "control characters"},
		{"fork a missing transcript", []string{"spawn", "--transcript", "/nonexistent/x.jsonl", "--pane", shPane}, "no such file"},
		{"fork a session with no state", []string{"spawn", "--fork", "nope", "--pane", shPane}, "no session nope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := s.with(t)
			code, evs, stderr := s.runKeys(sf, "", c.args...)
			if code != 1 || len(evs) != 1 || evs[0].Status != "refused" || !strings.Contains(evs[0].Reason, c.reason) {
				t.Fatalf("exit %d %+v %s; want refused with %q", code, evs, stderr, c.reason)
			}
		})
	}
	if got := typed(a.reads(t, 0)); got != "" {
		t.Errorf("the agent pane got %q", got)
	}
}
