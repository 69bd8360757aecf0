package t

// Agents on several "hosts" on this machine, each an isolated environment
// (its own HOME, AG_DIR, tmux server and AG_HOST), joined by a real sshd on
// 127.0.0.1 (hosts_ssh_test.go) and a real mosquitto broker
// (hosts_mqtt_test.go), with contrib/ag-remote and contrib/ag-mqtt.

import (
	"bytes"
	"encoding/json"
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

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// fakeHost is one isolated host: its agents are hook payloads fed through
// ag-hook, and its "agent" in tmux pane %0 is cat (it shows what ag-keys
// types).
type fakeHost struct {
	t                     *testing.T
	name                  string
	dir, home, agdir, tmp string
	env                   []string
}

func newFakeHost(t *testing.T, name string) *fakeHost {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	// Short paths: tmux's socket lives under TMUX_TMPDIR.
	dir, err := os.MkdirTemp("", "ag"+name)
	if err != nil {
		t.Fatal(err)
	}
	h := &fakeHost{t: t, name: name, dir: dir, home: filepath.Join(dir, "home"), agdir: filepath.Join(dir, "ag"), tmp: filepath.Join(dir, "tmp")}
	for _, d := range []string{h.home + "/.local/bin", h.agdir, h.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The binaries where a remote login finds them ($HOME/.local/bin).
	bins, _ := filepath.Glob(filepath.Join(binDir, "*"))
	for _, b := range bins {
		os.Symlink(b, filepath.Join(h.home, ".local/bin", filepath.Base(b)))
	}
	h.env = []string{"HOME=" + h.home, "AG_DIR=" + h.agdir, "AG_HOST=" + name, "TMUX_TMPDIR=" + h.tmp,
		"XDG_RUNTIME_DIR=" + h.tmp, "PATH=" + binDir + ":" + os.Getenv("PATH")}
	t.Cleanup(func() {
		h.cmd("tmux", "kill-server").Run()
		os.RemoveAll(dir)
	})
	h.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "120", "-y", "20", "cat")
	return h
}

// cmd is name run in the host's environment.
func (h *fakeHost) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = append(withoutTMUX(os.Environ()), h.env...)
	c.Dir = h.dir
	return c
}

func (h *fakeHost) tmux(args ...string) string {
	h.t.Helper()
	out, err := h.cmd("tmux", append([]string{"-u"}, args...)...).CombinedOutput()
	if err != nil {
		h.t.Fatalf("%s: tmux %v: %v: %s", h.name, args, err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// screen is what pane %0 shows, blanks trimmed.
func (h *fakeHost) screen() string {
	return strings.TrimSpace(h.tmux("capture-pane", "-p", "-t", "%0"))
}

// hook runs ag-hook claude with a payload as Claude's hook in pane %0 would.
func (h *fakeHost) hook(session, name string, extra string) {
	h.t.Helper()
	payload := fmt.Sprintf(`{"session_id":%q,"hook_event_name":%q,"cwd":"/src/%s"%s}`, session, name, h.name, extra)
	c := h.cmd(filepath.Join(binDir, "ag-hook"), "claude")
	c.Env = append(c.Env, "TMUX_PANE=%0")
	c.Stdin = strings.NewReader(payload)
	if out, err := c.CombinedOutput(); err != nil || len(out) > 0 {
		h.t.Fatalf("ag-hook: %v %s", err, out)
	}
}

// wait puts session s of this host in a permission wait for command.
func (h *fakeHost) wait(s, command string) {
	h.hook(s, "SessionStart", `,"source":"startup"`)
	h.hook(s, "UserPromptSubmit", `,"prompt":"ship it"`)
	h.hook(s, "PermissionRequest", `,"tool_name":"Bash","tool_input":{"command":`+strconv.Quote(command)+`}`)
}

// bg starts a long-running command of this host, killed (with its process
// group) at the end of the test; its stderr is kept in a file.
func (h *fakeHost) bg(label string, name string, args ...string) *exec.Cmd {
	h.t.Helper()
	c := h.cmd(name, args...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logf, err := os.Create(filepath.Join(h.dir, label+".err"))
	if err != nil {
		h.t.Fatal(err)
	}
	c.Stdout, c.Stderr = logf, logf
	if err := c.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		}
		logf.Close()
	})
	return c
}

// log is what a bg command wrote.
func (h *fakeHost) log(label string) string {
	b, _ := os.ReadFile(filepath.Join(h.dir, label+".err"))
	return string(b)
}

// states is the host's state file, by host/session.
func (h *fakeHost) states() map[string]event.Event {
	out := map[string]event.Event{}
	sts, err := state.Read(filepath.Join(h.agdir, "state.json"))
	if err != nil {
		return out
	}
	for _, s := range sts {
		out[s.Host+"/"+s.Session] = s
	}
	return out
}

// eventually polls cond for up to 20 s (a loaded machine, ssh and a broker
// in between), failing with what it last said.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		var ok bool
		if ok, last = cond(); ok {
			return
		}
	}
	t.Fatalf("%s: never; last: %s", what, last)
}

// sameAs reports whether the workstation's view of host's sessions is
// that host's own state file: status, attention, gen and token alike.
func sameAs(ws, host *fakeHost) (bool, string) {
	theirs, mine := host.states(), ws.states()
	var diff []string
	n := 0
	for k, s := range theirs {
		if s.Host != host.name {
			continue
		}
		n++
		m, ok := mine[k]
		if !ok || m.Status != s.Status || m.Attention != s.Attention || m.Token != s.Token || m.Gen != s.Gen || m.Stale != "" {
			diff = append(diff, fmt.Sprintf("%s: %s %s stale=%q / theirs %s %s", k, m.Status, m.Token, m.Stale, s.Status, s.Token))
		}
	}
	if n == 0 {
		return false, host.name + " has no sessions yet"
	}
	return len(diff) == 0, strings.Join(diff, "; ")
}

// freePort is a free TCP port on 127.0.0.1.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// notifications is a private D-Bus session bus with t/notifyd on it, for
// the workstation's ag-notify; press pushes a button the way a user would.
type notifications struct {
	t        *testing.T
	dir, bus string
}

func newNotifications(t *testing.T, ws *fakeHost) *notifications {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("no dbus-daemon")
	}
	n := &notifications{t: t, dir: ws.dir, bus: "unix:path=" + filepath.Join(ws.dir, "bus")}
	ws.env = append(ws.env, "DBUS_SESSION_BUS_ADDRESS="+n.bus)
	ws.bg("dbus", "dbus-daemon", "--session", "--nofork", "--address="+n.bus)
	eventually(t, "the bus is up", func() (bool, string) {
		_, err := os.Stat(filepath.Join(ws.dir, "bus"))
		return err == nil, fmt.Sprint(err)
	})
	ws.bg("notifyd", filepath.Join(binDir, "notifyd"), "-log", filepath.Join(ws.dir, "calls.ndjson"),
		"-ctl", filepath.Join(ws.dir, "ctl"), "-ready", filepath.Join(ws.dir, "ready"))
	eventually(t, "notifyd is up", func() (bool, string) {
		_, err := os.Stat(filepath.Join(ws.dir, "ready"))
		return err == nil, fmt.Sprint(err)
	})
	return n
}

// note is one Notify call.
type note struct {
	Call    string   `json:"call"`
	ID      int      `json:"id"`
	Summary string   `json:"summary"`
	Body    string   `json:"body"`
	Actions []string `json:"actions"`
}

func (n *notifications) calls() []note {
	b, _ := os.ReadFile(filepath.Join(n.dir, "calls.ndjson"))
	var out []note
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var c note
		if json.Unmarshal(l, &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// find waits for the newest Notify whose summary and body hold both texts.
func (n *notifications) find(summary, body string) note {
	n.t.Helper()
	var found note
	eventually(n.t, fmt.Sprintf("a notification %q: %q", summary, body), func() (bool, string) {
		cs := n.calls()
		for i := len(cs) - 1; i >= 0; i-- {
			if c := cs[i]; c.Call == "Notify" && strings.Contains(c.Summary, summary) && strings.Contains(c.Summary+"\n"+c.Body, body) {
				found = c
				return true, ""
			}
		}
		return false, fmt.Sprint(cs)
	})
	return found
}

func (n *notifications) press(id int, key string) {
	n.t.Helper()
	out, err := exec.Command(filepath.Join(binDir, "notifyd"), "ctl", filepath.Join(n.dir, "ctl"), "action", strconv.Itoa(id), key).CombinedOutput()
	if err != nil {
		n.t.Fatalf("press %s on %d: %v %s", key, id, err, out)
	}
}

func contrib(t *testing.T, name string) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "contrib", name)
}
