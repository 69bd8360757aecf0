// Package sshd runs a real OpenSSH server on 127.0.0.1 for tests: a port
// and host key of the test's own, key-only login, and every login landing
// in the environment the test gives (SetEnv: HOME, AG_DIR, AG_HOST, …), so
// one machine holds a "remote" host. It needs sshd and root (a login into
// another HOME).
package sshd

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Server is one sshd; SSH is the ssh command line that logs in to it, for
// AG_SSH (the destination is Dest).
type Server struct {
	t    testing.TB
	dir  string
	Port int
	SSH  string
	Dest string
	cmd  *exec.Cmd
}

// Bin is the sshd program, or "" when there is none.
func Bin() string {
	if p, err := exec.LookPath("sshd"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/sshd"); err == nil {
		return "/usr/sbin/sshd"
	}
	return ""
}

// Start starts sshd with logins in env (PATH entries are left out: a
// login's PATH is the system's), or skips the test where it cannot run.
func Start(t testing.TB, env []string) *Server {
	t.Helper()
	if Bin() == "" {
		t.Skip("no sshd (openssh-server)")
	}
	if os.Geteuid() != 0 {
		t.Skip("sshd logins into another HOME need root")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, dir: t.TempDir(), Port: l.Addr().(*net.TCPAddr).Port, Dest: "root@127.0.0.1"}
	l.Close()
	for _, k := range []string{"host", "client"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(s.dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, _ := os.ReadFile(filepath.Join(s.dir, "client.pub"))
	os.WriteFile(filepath.Join(s.dir, "authorized_keys"), pub, 0o600)
	var set []string
	for _, e := range env {
		if !strings.HasPrefix(e, "PATH=") {
			set = append(set, strconv.Quote(e))
		}
	}
	conf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %[2]s/host
PidFile %[2]s/pid
AuthorizedKeysFile %[2]s/authorized_keys
AuthenticationMethods publickey
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
SetEnv %s
`, s.Port, s.dir, strings.Join(set, " "))
	os.WriteFile(filepath.Join(s.dir, "sshd_config"), []byte(conf), 0o600)
	os.MkdirAll("/run/sshd", 0o755) // its privilege separation directory
	s.SSH = fmt.Sprintf("ssh -i %s -p %d -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR -o ServerAliveInterval=2 -o ServerAliveCountMax=2",
		filepath.Join(s.dir, "client"), s.Port)
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start starts the listener (again) and waits until a login works.
func (s *Server) Start() {
	s.t.Helper()
	// -D: in the foreground, so the test owns the listener's pid.
	s.cmd = exec.Command(Bin(), "-D", "-f", filepath.Join(s.dir, "sshd_config"), "-E", filepath.Join(s.dir, "log"))
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	var out []byte
	var err error
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if out, err = exec.Command("sh", "-c", s.SSH+" "+s.Dest+" true").CombinedOutput(); err == nil {
			return
		}
	}
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	s.t.Fatalf("sshd does not answer: %s\n%s", out, b)
}

// Stop ends the listener and every connection it serves: the link drops
// the way it does when a host goes away.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	for _, pid := range children(s.cmd.Process.Pid) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// Log is what sshd wrote.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	return string(b)
}

// children are the pids whose parent is pid (from /proc).
func children(pid int) []int {
	var out []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 2 && f[1] == strconv.Itoa(pid) {
			if c, err := strconv.Atoi(filepath.Base(filepath.Dir(st))); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
