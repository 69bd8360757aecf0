//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Kilo is the Kilo CLI release these tests pin: the newest whose platform
// package the registry has (7.8.1's @kilocode/cli-linux-x64 is not
// published: npm install @kilocode/cli@7.8.1 fails with ETARGET).
var Kilo = NPMPackage{Name: "@kilocode/cli", Version: "7.7.7", Bin: "kilo", Dir: "kilo-7.7.7"}

// Screen texts of Kilo 7.7.7.
const (
	KiloReady      = "ctrl+p commands"
	KiloPermission = "Permission required"
	KiloReject     = "Reject permission" // Escape on any permission asks what to do instead
	KiloQuestion   = "esc dismiss"
	KiloPlan       = "Ready to implement?"
)

// KiloConfig writes $XDG_CONFIG_HOME/kilo/kilo.json — a provider on the
// fake API whose model declares a 128,000-token window, permission asked
// for every shell command and edit, no update, no share — and sets the
// variables that keep Kilo off the network. With a plugin in that folder
// Kilo npm-installs @kilocode/plugin there at start and waits for it
// (offline, for minutes); it skips that when node_modules is there and
// package-lock.json names the dependency, which it does not check the
// version of (the registry has no @kilocode/plugin@7.7.7 anyway). It
// returns the config directory.
func (h *Harness) KiloConfig(api *chat.Server) string {
	h.T.Helper()
	dir := filepath.Join(h.Getenv("XDG_CONFIG_HOME"), "kilo")
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o700); err != nil {
		h.T.Fatal(err)
	}
	lock := `{"lockfileVersion":3,"packages":{"":{"dependencies":{"@kilocode/plugin":"` + Kilo.Version + `"}}}}` + "\n"
	cfg := familyConfig("https://app.kilo.ai/config.json", api)
	for name, body := range map[string]string{"package-lock.json": lock, "kilo.json": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			h.T.Fatal(err)
		}
	}
	h.familyOffline("KILO", "kilo")
	return dir
}

// StartKilo runs kilo (with args) in a new pane in the project folder and
// waits for its composer (its first start migrates a new database: slow
// on a loaded machine).
func (h *Harness) StartKilo(tm *Tmux, name, bin string, args ...string) *Pane {
	h.T.Helper()
	p := tm.NewPane(name, h.Project, nil, append([]string{bin}, args...)...)
	p.WaitText(3*time.Minute, KiloReady)
	return p
}

// childNamed is the child of pid whose comm is comm: the native binary an
// npm launcher runs.
func childNamed(t *testing.T, pid int, comm string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
		for _, f := range strings.Fields(string(b)) {
			if c, _ := os.ReadFile("/proc/" + f + "/comm"); strings.TrimSpace(string(c)) == comm {
				n, _ := strconv.Atoi(f)
				return n
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s child under pid %d: %q", comm, pid, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// procUps are the proc.up lines of `ag-detect --all` on tm's panes.
func procUps(t *testing.T, h *Harness, tm *Tmux) []event.Event {
	t.Helper()
	out := h.Run(30*time.Second, Bin(t, "ag-detect"), "-S", tm.Socket, "--all")
	var all []event.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e event.Event
		if event.Decode([]byte(line), &e) == nil && e.Kind == event.ProcUp {
			all = append(all, e)
		}
	}
	return all
}

// paneKeys runs ag-keys action (and args) on pane p once the state file
// holds the session's state s with status (the notification's moment),
// and returns its output and exit status.
func paneKeys(t *testing.T, h *Harness, p *Pane, s *Session, status, action string, args ...string) (string, int) {
	t.Helper()
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == s.ID && st.Status == status && st.Token == s.Last.Token {
				return true
			}
		}
		return false
	}, "the session's state "+status+" in the state file")
	return h.runCode(30*time.Second, append([]string{Bin(t, "ag-keys"), action, "--pane", p.ID, "-S", p.tm.Socket}, args...)...)
}

// kiloSubmitted presses Enter again while text stays in Kilo's composer
// (the line two over its agent line, over the "╹▀▀" edge), for up to
// 20 s: an Enter typed as the composer is drawn can be lost.
func kiloSubmitted(t *testing.T, p *Pane, text string) {
	t.Helper()
	first := strings.SplitN(text, "\n", 2)[0]
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		// Look after a pause: a prompt still on its way is no lost one.
		time.Sleep(3 * time.Second)
		lines := strings.Split(p.Capture(), "\n")
		edge := -1
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], "╹▀") {
				edge = i
				break
			}
		}
		if edge < 3 || strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[edge-3]), "┃")) != first {
			return
		}
		t.Logf("the prompt %q is still in the composer: Enter again", text)
		p.Keys("Enter")
	}
}
