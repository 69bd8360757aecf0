package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/fold"
)

// TestAnswered runs real processes: the test process stands for the agent,
// a permission prompt for a command is folded, and ag-fold (checking every
// 20 ms) must keep it waiting while only an older copy of the command runs
// under the agent, and see it answered once the command starts.
func TestAnswered(t *testing.T) {
	t.Run("child lists", func(t *testing.T) { testAnswered(t, "lists") })
	t.Run("process table", func(t *testing.T) {
		defer func(old func(int) ([]int, bool)) { childLists = old }(childLists)
		childLists = func(int) ([]int, bool) { return nil, false } // a kernel without them
		testAnswered(t, "table")
	})
}

func testAnswered(t *testing.T, name string) {
	cmd := fmt.Sprintf("sleep 30 && echo ag-answered-%s-%d", name, os.Getpid())
	start := func() *exec.Cmd {
		c := exec.Command("sh", "-c", cmd)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	start() // a copy started before the prompt (a server left running) is no answer
	time.Sleep(1200 * time.Millisecond)

	fl := follow(t, nil, "--check", "20ms")
	ev := func(kind string, set func(*event.Event)) {
		e := event.New(kind, time.Now(), "claude", "s1")
		e.Src, e.PID, e.ID = event.SrcHook, os.Getpid(), kind
		set(&e)
		io.WriteString(fl.in, string(event.Marshal(&e)))
	}
	ev(event.TurnStart, func(*event.Event) {})
	time.Sleep(time.Second) // the wait begins after the old copy's start, slack included
	ev(event.Wait, func(e *event.Event) { e.Attention, e.Tool, e.Text = event.AttnPermission, "Bash", cmd })
	fl.waitOut(t, "waiting state", 5*time.Second, func(s string) bool { return strings.Contains(s, `"status":"waiting"`) })
	time.Sleep(300 * time.Millisecond) // many checks
	if out := fl.stdout.String(); strings.Contains(out[strings.LastIndex(out, `"status":"waiting"`):], `"status":"working"`) {
		t.Fatalf("answered by the old copy:\n%s", out)
	}
	start()
	fl.waitOut(t, "working state with the command", 5*time.Second, func(s string) bool {
		i := strings.LastIndex(s, `"status":"waiting"`)
		return i >= 0 && strings.Contains(s[i:], `"status":"working","tool":"Bash","text":"`+cmd)
	})
	if code := fl.close(); code != 0 {
		t.Errorf("exit %d; stderr %s", code, fl.stderr.String())
	}
}

func TestNeedle(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"sleep 8 && echo done > slow.txt", "sleep 8 && echo done > slow.txt"},
		{`npm test -- --grep "the parser"`, "npm test -- --grep"},
		{"go test ./... 2>&1 | tail -20", "go test ./... 2>&1 | tail -20"},
		{"make e2e\nmake bench", "make e2e"},
		{"ls -la", ""},
		{`echo "hi"`, ""},
		{"pytest -x tests/test_long…", "pytest -x tests/test_long"},
	} {
		if got := needle(tc.cmd); got != tc.want {
			t.Errorf("needle(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// BenchmarkRunning is what one --check costs while a session waits: the
// whole process table read, the agent's descendants' command lines.
func BenchmarkRunning(b *testing.B) {
	waits := []fold.Wait{{Agent: "claude", Session: "s1", PID: os.Getpid(), Tool: "Bash", Text: "sleep 30 && echo never-running", Since: time.Now()}}
	for b.Loop() {
		running(context.Background(), waits)
	}
}
