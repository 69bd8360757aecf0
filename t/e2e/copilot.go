//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Copilot is the GitHub Copilot CLI release these tests pin
// (research/agents-live.md §5, t/fakeapi/README.md).
var Copilot = NPMPackage{Name: "@github/copilot", Version: "1.0.102", Bin: "copilot", Dir: "copilot-1.0.102"}

// Screen texts of Copilot CLI 1.0.102.
const (
	CopilotReady      = "Manual Approval" // the footer, once the session is up
	CopilotIdle       = "/ commands"      // the idle footer
	CopilotWorking    = "Working"         // "◎ Working esc esc edit prompt"
	CopilotPermission = "Do you want to run this command?"
	CopilotURL        = "Do you want to allow this access?"
	CopilotCancelled  = "Operation cancelled by user" // Escape on a dialog, Ctrl+C at work
	// CopilotAborted: Escape on a dialog now and then aborts the whole
	// turn instead (events.jsonl: permission.completed "cancelled",
	// reason "Session aborted"); the call does not run either way.
	CopilotAborted  = "Operation aborted by user"
	CopilotQuestion = "Copilot needs information."
	CopilotPlan     = "Plan Ready for Review"
)

// CopilotConfig runs Copilot against the fake Chat Completions API with no
// GitHub login (BYOK, offline: no auth, telemetry, web tools or update),
// the project folder trusted in config.json (no trust dialog), and its
// extracted payload shared between tests. With ownHome, Copilot's home is
// COPILOT_HOME (another folder than $HOME/.copilot). It returns that home.
func (h *Harness) CopilotConfig(t *testing.T, api *chat.Server, ownHome bool) string {
	t.Helper()
	home := filepath.Join(h.Home, ".copilot")
	if ownHome {
		home = filepath.Join(h.Root, "copilot-home")
		h.Setenv("COPILOT_HOME", home)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"trustedFolders": []string{h.Project}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"COPILOT_AUTO_UPDATE":       "false",
		"COPILOT_OFFLINE":           "true",
		"COPILOT_PROVIDER_BASE_URL": api.URL + "/v1",
		"COPILOT_PROVIDER_API_KEY":  "fake",
		"COPILOT_MODEL":             "fake-model",
		// The first start extracts ~235 MB; later ones reuse it.
		"COPILOT_CACHE_HOME": filepath.Join(CacheDir(t), Copilot.Dir+"-pkgcache"),
	} {
		h.Setenv(k, v)
	}
	h.Dump("copilot settings.json", func() string { return tailFile(filepath.Join(home, "settings.json"), 100) })
	h.Dump("copilot events.jsonl", func() string {
		files, _ := filepath.Glob(filepath.Join(home, "session-state", "*", "events.jsonl"))
		s := ""
		for _, f := range files {
			s += "--- " + f + "\n" + tailFile(f, 60)
		}
		return s
	})
	return home
}

// StartCopilot runs copilot (args after it) in a new pane in the project
// folder and waits for its composer.
func (h *Harness) StartCopilot(tm *Tmux, name, bin string, args ...string) *Pane {
	h.T.Helper()
	p := tm.NewPane(name, h.Project, nil, append([]string{bin}, args...)...)
	p.WaitText(3*time.Minute, CopilotReady, CopilotIdle) // the first start extracts its payload
	time.Sleep(2 * time.Second)                          // it loads its hooks and skills after drawing: an early Enter is lost
	return p
}

// copilotChild is the native process the npm loader in pane p runs (its
// comm is MainThread): the agent a hook's walk and ag-detect must name.
func copilotChild(t *testing.T, p *Pane) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/task/" + strconv.Itoa(p.PID) + "/children")
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			if comm, _ := os.ReadFile("/proc/" + f + "/comm"); strings.TrimSpace(string(comm)) == "MainThread" {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no MainThread child under the npm loader (pid %d): %q", p.PID, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// copilotDetected is ag-detect's proc.up for pane p: Copilot, its native
// child (never the node loader).
func copilotDetected(t *testing.T, h *Harness, p *Pane, child int) {
	t.Helper()
	detectedAs(t, h, p, "copilot", child, "/copilot")
}

// detectedAs checks ag-detect --all's one proc.up for pane p: agent, the
// process pid on the pane's terminal, an argv[0] ending in argv0.
func detectedAs(t *testing.T, h *Harness, p *Pane, agent string, pid int, argv0 string) {
	t.Helper()
	out := h.Run(30*time.Second, Bin(t, "ag-detect"), "-S", p.tm.Socket, "--all")
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e event.Event
		if event.Decode([]byte(line), &e) != nil || e.Kind != event.ProcUp || e.Pane != p.ID {
			continue
		}
		n++
		if e.Agent != agent || e.PID != pid || e.TTY != p.TTY || !strings.HasSuffix(e.Argv0, argv0) {
			t.Errorf("ag-detect proc.up: %s\nwant agent %s, pid %d (the pane's process is %d), tty %s", event.Marshal(&e), agent, pid, p.PID, p.TTY)
		}
	}
	if n != 1 {
		t.Errorf("ag-detect --all: %d proc.up for pane %s, want 1:\n%s", n, p.ID, out)
	}
}
