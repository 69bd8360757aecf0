package alive

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A process on a real pseudo-terminal that ignores SIGHUP, as an agent
// may: running on it, not hung; once the terminal's other end closes (a
// pane killed), alive still, with no terminal: hung.
func TestHungAfterTerminalCloses(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no /dev/ptmx:", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal("unlockpt:", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal("ptsname:", err)
	}
	tty := "/dev/pts/" + strconv.Itoa(n)
	pts, err := os.OpenFile(tty, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec sleep 30`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pts.Close()
	heard := time.Now()
	pid := cmd.Process.Pid
	// Once it runs sleep, the shell has set SIGHUP ignored (an ignored
	// signal stays so across exec); a hang-up before that kills it.
	waitFor(t, "the child on its terminal, running sleep", func() bool {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		nr, ok := ttyNr(pid)
		return ok && nr != 0 && string(comm) == "sleep\n"
	})
	if Hung(pid, tty, heard) {
		t.Fatalf("a process on its open terminal reported hung")
	}
	if Hung(pid, "/dev/tty1", heard) || Hung(pid, "", heard) || Hung(0, tty, heard) {
		t.Errorf("hung without a /dev/pts terminal or a pid")
	}
	ptmx.Close() // the pane goes
	waitFor(t, "hung after its terminal closed", func() bool { return Hung(pid, tty, heard) })
	if !Is(pid, heard) {
		t.Errorf("the child ignoring SIGHUP died; the test shows nothing")
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("not %s within 5 s", what)
		}
	}
}

func TestParseTTYNr(t *testing.T) {
	for _, c := range []struct {
		in   string
		nr   int64
		good bool
	}{
		{"26817 (sleep) S 1 26817 26817 34816 26817 4194560", 34816, true},
		{"1 (a) b) c) S 1 1 1 0 -1", 0, true},
		{"1 (x) S 1 1", 0, false},
		{"no paren", 0, false},
		{"1 (x) S 1 1 1 zz", 0, false},
	} {
		if nr, ok := parseTTYNr([]byte(c.in)); nr != c.nr || ok != c.good {
			t.Errorf("parseTTYNr(%q) = %d, %v; want %d, %v", c.in, nr, ok, c.nr, c.good)
		}
	}
}

func FuzzParseTTYNr(f *testing.F) {
	f.Add([]byte("26817 (sleep) S 1 26817 26817 34816 26817 4194560"))
	f.Add([]byte("1 ((()) ) S 1 1 1 -5"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if nr, ok := parseTTYNr(b); !ok && nr != 0 {
			t.Fatalf("%d reported with no tty_nr found", nr)
		}
	})
}
