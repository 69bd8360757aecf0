//go:build e2e

package e2e

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// StartDBus starts a private D-Bus session bus on a socket in the harness
// root and sets DBUS_SESSION_BUS_ADDRESS for everything started afterwards
// (start it before the tmux server so panes see it too). It returns the
// bus address.
func (h *Harness) StartDBus() string {
	h.T.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		h.T.Fatal("dbus-daemon is not installed (.ci/run installs dbus)")
	}
	p := h.Command("dbus-daemon", "dbus-daemon", "--session", "--nofork", "--nopidfile",
		"--address=unix:path="+filepath.Join(h.Root, "dbus.sock"), "--print-address=1")
	out, err := p.Cmd.StdoutPipe()
	if err != nil {
		h.T.Fatal(err)
	}
	h.Start(p)
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		if a == "" {
			h.T.Fatal("dbus-daemon printed no address")
		}
		h.Setenv("DBUS_SESSION_BUS_ADDRESS", a)
		return a
	case <-time.After(10 * time.Second):
		h.T.Fatal("dbus-daemon did not print its address within 10s")
	}
	return ""
}
