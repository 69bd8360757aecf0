package alive

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestIs(t *testing.T) {
	if !Is(os.Getpid(), time.Time{}) || !Is(os.Getpid(), time.Now()) {
		t.Errorf("this process reported dead")
	}
	start, ok := StartTime(os.Getpid())
	if ok {
		if d := time.Since(start); d < 0 || d > time.Hour {
			t.Errorf("StartTime(self) = %v, %v ago", start, d)
		}
		// Heard of before it started: another process had the number.
		if Is(os.Getpid(), start.Add(-time.Minute)) {
			t.Errorf("a process started after it was heard of reported alive")
		}
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	pid := cmd.Process.Pid
	if !Is(pid, time.Now()) {
		t.Errorf("running sleep reported dead")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if Is(pid, time.Time{}) {
		t.Errorf("killed sleep reported alive")
	}
	if Is(0, time.Time{}) || Is(-1, time.Time{}) || Is(2147000001, time.Time{}) {
		t.Errorf("impossible pids reported alive")
	}
}

// TestZombie: a process that exited and is not reaped yet (its parent has
// not waited for it) is dead, though kill(pid, 0) still finds it.
func TestZombie(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, zombie, ok := Stat(cmd.Process.Pid); ok && zombie {
			break
		} else if !ok {
			t.Skip("no process status here")
		}
		if time.Now().After(deadline) {
			t.Fatal("true never exited")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if Is(cmd.Process.Pid, time.Time{}) {
		t.Errorf("a zombie reported alive")
	}
}
