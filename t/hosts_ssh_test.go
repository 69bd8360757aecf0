package t

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/t/internal/sshd"
)

// TestSSHHosts: a workstation (hosta, with an agent of its own in %0)
// follows hostb over a real sshd with contrib/ag-remote. Both hosts'
// sessions are in the merged state file; hostb's wait is notified naming
// hostb; Approve types 1 into hostb's %0 and nothing into hosta's %0; when
// the link drops hostb's session is shown stale (said once), and after the
// reconnect the workstation's view is hostb's own state file again,
// including what changed while it was down.
func TestSSHHosts(t *testing.T) {
	t.Parallel()
	a, b := newFakeHost(t, "hosta"), newFakeHost(t, "hostb")
	srv := sshd.Start(t, b.env)
	n := newNotifications(t, a)
	remote := contrib(t, "ag-remote")
	a.env = append(a.env, "AG_SSH="+srv.SSH, "AG_RETRY=1", "AG_REMOTE=hostb")

	a.hook("sa", "SessionStart", `,"source":"startup"`)
	a.hook("sa", "UserPromptSubmit", `,"prompt":"work here"`)
	b.wait("sb", "make deploy")

	ws := fmt.Sprintf(`{ ag-tail --follow & %[1]s --states %[2]s; } | ag-fold --tmux | ag-notify --backend dbus | `+
		`ag-keys --pass --where '.kind=="action"' | %[1]s --keys %[2]s`, remote, srv.Dest)
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
	srv.Stop()
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

	srv.Start()
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
