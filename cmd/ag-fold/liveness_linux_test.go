package main

import (
	"os/exec"
	"syscall"
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

// TestZombieIsDead: a process that exited but is not reaped yet (state Z:
// tmux reaps an exited pane's process late) is dead, though kill(pid, 0)
// still finds it — at the first check and through a pidfd.
func TestZombieIsDead(t *testing.T) {
	for _, pidfdFirst := range []bool{false, true} {
		cmd := exec.Command("sleep", "30")
		if err := cmd.Start(); err != nil {
			t.Skip("no sleep:", err)
		}
		l := &liveness{fds: map[procKey]*pidfd{}, swept: time.Now()}
		p := fold.Proc{PID: cmd.Process.Pid, Seen: time.Now().Add(time.Second)}
		if pidfdFirst && !l.alive(p) {
			t.Fatal("running sleep reported dead")
		}
		// Kill it and leave it unreaped until it is a zombie.
		syscall.Kill(p.PID, syscall.SIGKILL)
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, z, _ := procStat(p.PID); z {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the killed child never became a zombie")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if syscall.Kill(p.PID, 0) != nil {
			t.Fatal("kill(pid, 0) does not find the zombie: nothing to test")
		}
		if alive(p) {
			t.Errorf("zombie %d: alive says alive", p.PID)
		}
		if l.alive(p) {
			t.Errorf("zombie %d (pidfd first %v): liveness says alive", p.PID, pidfdFirst)
		}
		cmd.Wait()
	}
}

func TestParseProcStatState(t *testing.T) {
	for line, want := range map[string]bool{
		"1234 (opencode) Z 1 1234 1234 0 -1 4194636 0 0 0 0 0 0 0 0 20 0 1 0 5000 0 0":    true,
		"1234 (a (b) c) S 1 1234 1234 34816 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 5000 0 0": false,
		"1234 (x) X 1 1234 1234 0 -1 4194636 0 0 0 0 0 0 0 0 20 0 1 0 5000 0 0":           true,
	} {
		if _, z, _ := parseProcStat([]byte(line)); z != want {
			t.Errorf("%q: zombie %v, want %v", line, z, want)
		}
	}
}
