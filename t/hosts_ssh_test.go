package t

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sshd is a real OpenSSH server on 127.0.0.1 whose logins land in one
// fake host's environment (SetEnv: its HOME, AG_DIR, AG_HOST, tmux).
type sshd struct {
	t          *testing.T
	dir        string
	port       int
	cmd        *exec.Cmd
	clientKey  string
	sshCommand string
}

func startSSHD(t *testing.T, remote *fakeHost) *sshd {
	t.Helper()
	bin, err := exec.LookPath("sshd")
	if err != nil {
		if bin = "/usr/sbin/sshd"; !fileExists(bin) {
			t.Skip("no sshd (openssh-server)")
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("sshd logins into another HOME need root")
	}
	s := &sshd{t: t, dir: t.TempDir(), port: freePort(t)}
	for _, k := range []string{"host", "client"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(s.dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub, _ := os.ReadFile(filepath.Join(s.dir, "client.pub"))
	os.WriteFile(filepath.Join(s.dir, "authorized_keys"), pub, 0o600)
	var env []string
	for _, e := range remote.env {
		if !strings.HasPrefix(e, "PATH=") {
			env = append(env, e)
		}
	}
	conf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s/host
PidFile %s/pid
AuthorizedKeysFile %s/authorized_keys
AuthenticationMethods publickey
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
SetEnv %s
`, s.port, s.dir, s.dir, s.dir, strings.Join(env, " "))
	os.WriteFile(filepath.Join(s.dir, "sshd_config"), []byte(conf), 0o600)
	os.MkdirAll("/run/sshd", 0o755) // privilege separation directory
	s.clientKey = filepath.Join(s.dir, "client")
	s.sshCommand = fmt.Sprintf("ssh -i %s -p %d -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR -o ServerAliveInterval=2 -o ServerAliveCountMax=2", s.clientKey, s.port)
	s.start()
	t.Cleanup(s.stop)
	return s
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (s *sshd) start() {
	s.t.Helper()
	bin, err := exec.LookPath("sshd")
	if err != nil {
		bin = "/usr/sbin/sshd"
	}
	// -D: stay in the foreground, so the test owns the listener's pid.
	s.cmd = exec.Command(bin, "-D", "-f", filepath.Join(s.dir, "sshd_config"), "-E", filepath.Join(s.dir, "log"))
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	eventually(s.t, "sshd answers", func() (bool, string) {
		out, err := exec.Command("sh", "-c", s.sshCommand+" root@127.0.0.1 true").CombinedOutput()
		return err == nil, string(out)
	})
}

// stop ends the listener and every connection it serves: the link drops
// the way it does when a host goes away.
func (s *sshd) stop() {
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

// TestSSHHosts: a workstation (hosta, with an agent of its own in %0)
// follows hostb over a real sshd with contrib/ag-remote. Both hosts'
// sessions are in the merged state file; hostb's wait is notified naming
// hostb; Approve types 1 into hostb's %0 and nothing into hosta's %0; when
// the link drops hostb's session is shown stale (said once), and after the
// reconnect the workstation's view is hostb's own state file again,
// including what changed while it was down.
func TestSSHHosts(t *testing.T) {
	a, b := newFakeHost(t, "hosta"), newFakeHost(t, "hostb")
	srv := startSSHD(t, b)
	n := newNotifications(t, a)
	remote := contrib(t, "ag-remote")
	a.env = append(a.env, "AG_SSH="+srv.sshCommand, "AG_RETRY=1", "AG_REMOTE=hostb")

	a.hook("sa", "SessionStart", `,"source":"startup"`)
	a.hook("sa", "UserPromptSubmit", `,"prompt":"work here"`)
	b.wait("sb", "make deploy")

	ws := fmt.Sprintf(`{ ag-tail --follow & %[1]s --states root@127.0.0.1; } | ag-fold --tmux | ag-notify --backend dbus | `+
		`ag-keys --pass --where '.kind=="action"' | %[1]s --keys root@127.0.0.1`, remote)
	a.bg("ws", "sh", "-c", ws)
	t.Cleanup(func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("workstation's stderr:\n%s", a.log("ws"))
		}
	})

	eventually(t, "both hosts' sessions in the workstation's state file", func() (bool, string) {
		st := a.states()
		return st["hosta/sa"].Status == "working" && st["hostb/sb"].Status == "waiting", fmt.Sprint(st)
	})
	nb := n.find("Claude Code@hostb", "make deploy")
	if !strings.Contains(strings.Join(nb.Actions, " "), "approve") {
		t.Fatalf("hostb's notification has no Approve: %+v", nb)
	}
	n.press(nb.ID, "approve")
	eventually(t, "Approve typed into hostb's %0", func() (bool, string) {
		s := b.screen()
		return s == "1", s
	})
	if s := a.screen(); s != "" {
		t.Fatalf("hosta's %%0 got keys meant for hostb's: %q", s)
	}

	// The link drops: hostb's session is stale on the workstation, and the
	// workstation says so once however often the reconnect fails.
	srv.stop()
	eventually(t, "hostb stale on the workstation", func() (bool, string) {
		st := a.states()["hostb/sb"]
		sum := a.tmux("show-options", "-gqv", "@ag_summary")
		return strings.HasPrefix(st.Stale, "lost touch with hostb") && strings.Contains(sum, "hostb ?1"), fmt.Sprintf("%+v summary %q", st, sum)
	})
	// Nothing of the remote pipeline outlives its connection (sshd sends an
	// idle ag-tail no hangup).
	eventually(t, "hostb's remote pipeline ended with the link", func() (bool, string) {
		left := running("AG_DIR=" + b.agdir)
		return len(left) == 0, fmt.Sprint(left)
	})
	b.hook("sb", "PostToolUse", `,"tool_name":"Bash","tool_input":{"command":"make deploy"}`)
	b.hook("sb", "PermissionRequest", `,"tool_name":"Bash","tool_input":{"command":"make smoke"}`)
	time.Sleep(2500 * time.Millisecond) // a few failed reconnects
	if got := strings.Count(a.log("ws"), "lost touch with hostb"); got != 1 {
		t.Errorf("said %d times that hostb is out of reach:\n%s", got, a.log("ws"))
	}

	srv.start()
	eventually(t, "the workstation's view is hostb's own state file", func() (bool, string) { return sameAs(a, b) })
	n.find("Claude Code@hostb", "make smoke")
	if st := a.states()["hosta/sa"]; st.Status != "working" || st.Stale != "" {
		t.Errorf("hosta's own session: %+v", st)
	}
}

// running lists the ag processes whose environment holds env.
func running(env string) []string {
	var out []string
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range envs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains("\x00"+string(b)+"\x00", "\x00"+env+"\x00") {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "comm"))
		if c := strings.TrimSpace(string(comm)); strings.HasPrefix(c, "ag-") {
			out = append(out, filepath.Base(filepath.Dir(p))+" "+c)
		}
	}
	return out
}
