//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agwatch/ag/filters/tmux"
)

// Tmux is a private tmux server on a socket in the harness root, started
// with no config file and the harness environment, killed at teardown.
type Tmux struct {
	h      *Harness
	Socket string
	Client *tmux.Client
}

// StartTmux starts the private server with one placeholder session, so
// agents' panes can come and go without the server exiting.
func (h *Harness) StartTmux() *Tmux {
	h.T.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		h.T.Fatal("tmux is not installed (.ci/run installs it)")
	}
	tm := &Tmux{h: h, Socket: filepath.Join(h.Root, "tmux.sock")}
	tm.Client = &tmux.Client{Socket: tm.Socket}
	// The first command starts the server, which keeps this environment
	// as its global one: panes see the harness env, not the test's.
	cmd := exec.Command("tmux", "-S", tm.Socket, "-f", "/dev/null",
		"new-session", "-d", "-s", "base", "-x", "160", "-y", "50", "-c", h.Project, "sleep 1000000")
	cmd.Env = h.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		h.T.Fatalf("starting tmux: %v: %s", err, out)
	}
	h.OnClose(tm.close)
	return tm
}

// close kills the server and waits for the panes' programs to be gone: an
// agent hung up on still writes (its SessionEnd hook, its transcript), and
// must be done before the teardown goes on to stop the pipeline and remove
// the root.
func (tm *Tmux) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var pids []int
	if out, err := tm.Client.Run(ctx, "list-panes", "-a", "-F", "#{pane_pid}"); err == nil {
		for _, f := range strings.Fields(string(out)) {
			var pid int
			if _, err := fmt.Sscan(f, &pid); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
	}
	tm.Client.Run(ctx, "kill-server")
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				tm.h.T.Logf("pane process %d still running 10s after kill-server: killed", pid)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// Whatever a pane started and outlived it (Gemini CLI's relaunched
	// node survives the hang-up, and a pane killed earlier leaves its
	// program behind): every process still naming this server in $TMUX.
	for _, pid := range started(tm.Socket) {
		syscall.Kill(pid, syscall.SIGKILL)
		tm.h.T.Logf("process %d, started in a pane, still running after kill-server: killed", pid)
	}
}

// started lists the processes whose $TMUX names the server at socket:
// started in one of its panes (Linux: /proc; elsewhere none).
func started(socket string) []int {
	dirs, _ := os.ReadDir("/proc")
	want := []byte("\x00TMUX=" + socket + ",")
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() || !alive(pid) {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid still exists (a zombie counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err) // no /proc (darwin): trust kill(0)
	}
	// "pid (comm) S ...": the state follows the last ')'.
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}

// Run runs one tmux command against the private server; failure fails the test.
func (tm *Tmux) Run(args ...string) string {
	tm.h.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := tm.Client.Run(ctx, args...)
	if err != nil {
		tm.h.T.Fatal(err)
	}
	return string(out)
}

// Env is what a program needs to reach this server as if it ran inside it
// ($TMUX = socket,server pid,session).
func (tm *Tmux) Env() string {
	pid := strings.TrimSpace(tm.Run("display-message", "-p", "-t", "base", "#{pid}"))
	return fmt.Sprintf("%s,%s,0", tm.Socket, pid)
}

// Pane is one pane of the private server running one program.
type Pane struct {
	tm   *Tmux
	Name string // the tmux session holding it
	ID   string // %N, as $TMUX_PANE
	PID  int    // pane_pid: the program itself (tmux execs the command)
	TTY  string // pane_tty, /dev/pts/N
	// prompt types a prompt the way the agent in the pane takes it
	// (Prompt; nil: Type).
	prompt func(text string)
	// seen is when WaitText last found what it waited for: Keys waits
	// until KeysAfter has passed since, as a person would.
	seen time.Time
}

// KeysAfter is how long after a screen is first seen Keys first types
// into it. Claude Code 2.1.332 drops the keys a dialog gets in its first
// ~0.1–0.15 s on screen (its input grace: keys typed ahead of a prompt do
// not answer it); nobody answers a prompt sooner than this.
const KeysAfter = 300 * time.Millisecond

// Prompt types a prompt at the agent's composer and submits it.
func (p *Pane) Prompt(text string) {
	p.tm.h.T.Helper()
	if p.prompt != nil {
		p.prompt(text)
		return
	}
	p.Type(text)
}

// NewPane starts argv in a new 160x50 session named name, in dir, with the
// harness environment as it is now plus extra. The pane is shown in the
// test log on failure.
func (tm *Tmux) NewPane(name, dir string, env []string, argv ...string) *Pane {
	tm.h.T.Helper()
	args := []string{"new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", dir,
		"-P", "-F", "#{pane_id} #{pane_pid} #{pane_tty}"}
	for _, kv := range append(tm.h.Environ(), env...) {
		args = append(args, "-e", kv)
	}
	out := strings.Fields(tm.Run(append(append(args, "--"), argv...)...))
	if len(out) != 3 {
		tm.h.T.Fatalf("tmux new-session printed %q", out)
	}
	p := &Pane{tm: tm, Name: name, ID: out[0], TTY: out[2]}
	fmt.Sscan(out[1], &p.PID)
	// Keep the pane after its program exits, so a crash stays readable.
	tm.Run("set-option", "-t", name, "remain-on-exit", "on")
	tm.h.Dump("pane "+name+" "+p.ID, func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s, err := tm.Client.Capture(ctx, p.ID, 200)
		if err != nil {
			return err.Error()
		}
		return s
	})
	return p
}

// Capture is the visible text of the pane.
func (p *Pane) Capture() string {
	p.tm.h.T.Helper()
	return p.tm.Run("capture-pane", "-p", "-t", p.ID)
}

// Type types text as literal keys, pauses (a fast burst reads as a paste to
// some TUIs), then presses Enter.
func (p *Pane) Type(text string) {
	p.tm.h.T.Helper()
	p.tm.Run("send-keys", "-t", p.ID, "-l", "--", text)
	time.Sleep(500 * time.Millisecond)
	p.tm.Run("send-keys", "-t", p.ID, "Enter")
}

// Keys sends tmux key names (1, Escape, Enter, C-c).
func (p *Pane) Keys(keys ...string) {
	p.tm.h.T.Helper()
	if wait := KeysAfter - time.Since(p.seen); wait > 0 {
		time.Sleep(wait)
	}
	p.tm.Run(append([]string{"send-keys", "-t", p.ID}, keys...)...)
}

// WaitText waits until the pane shows every one of texts and returns the
// screen; the test fails after timeout.
func (p *Pane) WaitText(timeout time.Duration, texts ...string) string {
	p.tm.h.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := p.Capture()
		ok := true
		for _, want := range texts {
			ok = ok && strings.Contains(s, want)
		}
		if ok {
			p.seen = time.Now()
			return s
		}
		if time.Now().After(deadline) {
			p.tm.h.T.Fatalf("pane %s did not show %q within %s", p.ID, texts, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitAnyText waits until the pane shows one of texts (where the agent
// words the same outcome in more than one way) and returns the screen.
func (p *Pane) WaitAnyText(timeout time.Duration, texts ...string) string {
	p.tm.h.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := p.Capture()
		for _, want := range texts {
			if strings.Contains(s, want) {
				p.seen = time.Now()
				return s
			}
		}
		if time.Now().After(deadline) {
			p.tm.h.T.Fatalf("pane %s showed none of %q within %s", p.ID, texts, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitScreen reports whether p shows every one of texts within timeout.
func waitScreen(p *Pane, timeout time.Duration, texts ...string) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		s, ok := p.Capture(), true
		for _, x := range texts {
			ok = ok && strings.Contains(s, x)
		}
		if ok {
			return true
		}
	}
	return false
}
