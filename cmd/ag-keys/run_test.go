package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/panes"
)

func TestCommandName(t *testing.T) {
	for in, want := range map[string]string{"zsh": "zsh", "-zsh": "zsh", "/bin/bash\n": "bash", "claude": "claude", "ag-keys.test": "ag-keys.test"} {
		if got := commandName(in); got != want {
			t.Errorf("commandName(%q) = %q; want %q", in, got, want)
		}
	}
	for _, sh := range []string{"sh", "bash", "zsh", "fish", "dash", "ksh", "tcsh", "nu"} {
		if !shellNames[sh] {
			t.Errorf("%s is not treated as a shell", sh)
		}
	}
	for _, notPOSIX := range []string{"fish", "tcsh", "csh", "nu"} {
		if posixShells[notPOSIX] {
			t.Errorf("%s must not be typed POSIX quoting", notPOSIX)
		}
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{"help", []string{"--help"}, 0, "plan-approve", ""},
		{"man", []string{"--man"}, 0, ".TH", ""},
		{"unknown action", []string{"yes", "--pane", "%1"}, 2, "", `unknown action "yes"`},
		{"no pane", []string{"deny"}, 2, "", "deny needs --pane"},
		{"approve with text", []string{"approve", "x", "--pane", "%1"}, 2, "", "approve takes no TEXT"},
		{"answer without text", []string{"answer", "--pane", "%1"}, 2, "", "answer takes one TEXT"},
		{"resume without pane", []string{"resume"}, 2, "", "resume needs --pane"},
		{"resume-command with pane", []string{"resume-command", "--session", "x", "--pane", "%1"}, 2, "", "takes no --pane"},
		{"spawn with fork and prompt", []string{"spawn", "--fork", "s", "--prompt", "p"}, 2, "", "a fork takes no --prompt"},
		{"spawn extra word", []string{"spawn", "now"}, 2, "", "spawn takes no arguments"},
		{"bad where", []string{"--where", "(", "approve", "--pane", "%1"}, 2, "", "--where"},
		{"spawn", []string{"spawn", "--prompt", "hi"}, 0, "command claude 'hi'\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append(tc.args, "--state", t.TempDir()+"/none.json"), strings.NewReader(""), &out, &errb)
			if code != tc.code || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("run(%q) = %d, %q, %q; want %d, %q, %q", tc.args, code, out.String(), errb.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
}

// The filter writes only keys events unless --pass; a non-action event
// never makes it type anything.
func TestFilterPass(t *testing.T) {
	in := `{"v":1,"t":"2026-11-30T03:00:00.000Z","kind":"state","agent":"claude","session":"s1","src":"fold","status":"idle"}` + "\n"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--pass"}, in},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), append(tc.args, "--state", t.TempDir()+"/none.json"), strings.NewReader(in), &out, &errb)
		if code != 0 || out.String() != tc.want || errb.Len() > 0 {
			t.Errorf("run(%q) = %d, %q, %q; want 0, %q", tc.args, code, out.String(), errb.String(), tc.want)
		}
	}
}

// A signal ends the filter while it waits for input: ag-pipeline stops
// its stages with SIGTERM and waits for them.
func TestFilterEndsOnSignalWhileReading(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	in := &readingReader{r: pr, reading: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		var out, errb bytes.Buffer
		done <- run(ctx, []string{"--state", t.TempDir() + "/none.json"}, in, &out, &errb)
	}()
	<-in.reading // blocked on an idle pipe
	cancel()
	select {
	case code := <-done:
		if code != cli.ExitInterrupted {
			t.Errorf("exit %d; want %d", code, cli.ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the filter went on reading after the signal")
	}
}

// readingReader closes reading when the first Read begins.
type readingReader struct {
	r       io.Reader
	once    sync.Once
	reading chan struct{}
}

func (r *readingReader) Read(p []byte) (int, error) {
	r.once.Do(func() { close(r.reading) })
	return r.r.Read(p)
}

// TestActionLineBound: reading actions alone, a line longer than any
// action can be is reported and skipped without being kept (ag-keys took
// 64 MB lines); the next action is still read.
func TestActionLineBound(t *testing.T) {
	long := `{"v":1,"t":"2026-11-30T03:00:00.000Z","kind":"action","agent":"claude","session":"s1","src":"notify","action":"reply","text":"` +
		strings.Repeat("x", 1<<20) + `"}` + "\n"
	next := `{"v":1,"t":"2026-11-30T03:00:00.000Z","kind":"action","agent":"claude","session":"s2","src":"notify","action":"approve","token":"1.1"}` + "\n"
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--state", t.TempDir() + "/none.json"}, strings.NewReader(long+next), &out, &errb)
	if code != cli.ExitError || !strings.Contains(errb.String(), "<stdin>:1: line longer than 65536 bytes, skipped") {
		t.Errorf("exit %d, stderr %q; want 2 and the long line reported", code, errb.String())
	}
	if !strings.Contains(out.String(), `"session":"s2"`) || strings.Contains(out.String(), `"session":"s1"`) {
		t.Errorf("keys events %q: want the second action alone", out.String())
	}
}

// TestTaken: when a hidden view may be killed after typing into it.
func TestTaken(t *testing.T) {
	for _, tc := range []struct {
		name          string
		wait          bool
		kind          panes.Kind
		changed, want bool
	}{
		{"a prompt answered: the agent at work", true, panes.Busy, false, true},
		{"a prompt refused (Escape): the composer", true, panes.Idle, false, true},
		{"own words in the question's input: no rule reads it", true, panes.None, true, false},
		{"the next question of a form", true, panes.Wait, true, true},
		{"the same prompt still there", true, panes.Wait, false, false},
		{"a reply sent from the composer", false, panes.Busy, true, true},
		{"a reply queued while at work: nothing new yet", false, panes.Busy, false, false},
		{"a frame between two", false, panes.None, true, false},
	} {
		if got := taken(tc.wait, tc.kind, tc.changed); got != tc.want {
			t.Errorf("%s: taken = %v, want %v", tc.name, got, tc.want)
		}
	}
}
