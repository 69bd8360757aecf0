//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/internal/sshd"
)

// TestClaudeRemoteOverSSH: the real Claude Code on a "remote" host (hostb:
// its own HOME, AG_DIR, tmux server, reached through a real sshd on
// 127.0.0.1), followed from a workstation (hosta) with contrib/ag-remote:
// its permission prompt is notified on the workstation naming hostb,
// Approve pressed there types into hostb's pane, the command runs, and the
// workstation's state file follows hostb's session to done.
func TestClaudeRemoteOverSSH(t *testing.T) {
	bin := Install(t, Claude)
	CheckVersion(t, bin, Claude.Version)
	b := New(t) // the remote host
	b.Setenv("AG_HOST", "hostb")
	b.FakeAnthropic()
	b.ClaudeConfig()
	b.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "claude")
	// The ag binaries where a remote login finds them.
	local := filepath.Join(b.Home, ".local", "bin")
	os.MkdirAll(local, 0o755)
	entries, _ := os.ReadDir(Bins)
	for _, e := range entries {
		os.Symlink(filepath.Join(Bins, e.Name()), filepath.Join(local, e.Name()))
	}
	srv := sshd.Start(t, b.Environ())
	b.Dump("sshd log", srv.Log)
	tm := b.StartTmux()

	a := New(t) // the workstation
	a.Setenv("AG_HOST", "hosta")
	a.StartDBus()
	nd := a.StartNotifyd()
	wd, _ := os.Getwd()
	contrib := filepath.Join(wd, "..", "..", "contrib")
	a.Setenv("PATH", contrib+string(os.PathListSeparator)+a.Getenv("PATH"))
	a.Setenv("AG_SSH", srv.SSH)
	a.Setenv("AG_RETRY", "1")
	a.Setenv("AG_REMOTE", "hostb")
	a.Setenv("AG_KEYS_ARGS", "-S "+tm.Socket)
	ws := exec.Command("sh", "-c", `{ ag-tail --follow & ag-remote --states `+srv.Dest+`; } | ag-fold | ag-notify --backend dbus | `+
		`ag-keys --pass --where '.kind=="action"' | ag-remote --keys `+srv.Dest)
	ws.Env, ws.Dir = a.Environ(), a.Project
	ws.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	errs := filepath.Join(a.Root, "workstation.err")
	ef, _ := os.Create(errs)
	outs := filepath.Join(a.Root, "workstation.out")
	of, _ := os.Create(outs)
	ws.Stderr, ws.Stdout = ef, of
	if err := ws.Start(); err != nil {
		t.Fatal(err)
	}
	a.OnClose(func() {
		syscall.Kill(-ws.Process.Pid, syscall.SIGTERM)
		ws.Wait()
		ef.Close()
		of.Close()
	})
	a.Dump("workstation stderr", func() string { return tailFile(errs, 50) })
	a.Dump("hostb's keys events", func() string { return tailFile(outs, 20) })

	p := tm.NewPane("remote", b.Project, nil, bin)
	p.WaitText(90*time.Second, ClaudeIdle)
	from := len(nd.Calls())
	p.Type("RUN: echo marker > marker.txt")
	note, _ := nd.WaitCall(from, "hostb's permission prompt notified on the workstation", 60*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.HasPrefix(c.Summary, "Claude Code@hostb · ") && strings.Contains(c.Body, "echo marker > marker.txt")
	})
	if !strings.Contains(strings.Join(note.Actions, " "), "approve") {
		t.Fatalf("no Approve on %+v", note)
	}
	p.WaitText(30*time.Second, ClaudePermission) // what the user sees before pressing
	nd.Press(note.ID, "approve")
	b.WaitFile(filepath.Join(b.Project, "marker.txt"), 60*time.Second, "marker")
	a.WaitState(60*time.Second, func(sts []event.Event) bool {
		for _, s := range sts {
			if s.Host == "hostb" && s.Agent == "claude" && s.Status == event.StatusDone {
				return true
			}
		}
		return false
	}, "hostb's session done on the workstation")
}
