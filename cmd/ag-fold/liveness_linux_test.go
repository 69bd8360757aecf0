package main

import (
	"os/exec"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/fold"
)

// TestLiveness: a process found alive is then watched through a pidfd,
// its exit is seen, and pidfds nobody asks about are closed.
func TestLiveness(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	l := &liveness{fds: map[procKey]*pidfd{}, swept: time.Now()}
	p := fold.Proc{PID: cmd.Process.Pid, Seen: time.Now().Add(time.Second)}
	if !l.alive(p) {
		t.Fatalf("running sleep %d reported dead", p.PID)
	}
	if len(l.fds) != 1 {
		t.Skip("no pidfd here (kernel before 5.3?)")
	}
	if !l.alive(p) {
		t.Errorf("running sleep %d reported dead through its pidfd", p.PID)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if l.alive(p) {
		t.Errorf("killed sleep %d reported alive", p.PID)
	}
	if len(l.fds) != 0 {
		t.Errorf("the dead process's pidfd is kept: %v", l.fds)
	}
	if l.alive(fold.Proc{PID: 2147000001}) {
		t.Errorf("impossible pid reported alive")
	}

	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	l.alive(fold.Proc{PID: other.Process.Pid, Seen: time.Now().Add(time.Second)})
	for _, d := range l.fds {
		d.used = time.Now().Add(-2 * forgetAfter)
	}
	l.swept = time.Time{}
	l.alive(fold.Proc{PID: 2147000001})
	if len(l.fds) != 0 {
		t.Errorf("a pidfd unasked for %s is kept", 2*forgetAfter)
	}
}
