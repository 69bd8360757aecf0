//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Cline is the Cline CLI release these tests pin (the npm package's bin is
// linked to its native binary by the package's postinstall).
var Cline = NPMPackage{Name: "cline", Version: "3.0.65", Bin: "cline", Dir: "cline-3.0.65"}

// Screen texts of Cline 3.0.65.
const (
	ClineReady      = "Auto-approve all"  // the footer's last line
	ClineComposer   = "❯ Ask anything..." // the empty composer (in act mode)
	ClinePermission = "[y] Approve   [n] Deny"
	ClineQuestion   = "Cline is asking a question"
	ClineAutoOff    = "Auto-approve all disabled"
)

// ClineConfig points Cline at the fake Chat Completions API (`cline auth
// --provider openai-compatible`, which writes ~/.cline/data/settings/
// providers.json) and marks its two promotions shown (each takes the next
// key on the first starts). Tool auto-approve stays Cline's default: on.
func (h *Harness) ClineConfig(t *testing.T, bin string, api *chat.Server) {
	t.Helper()
	h.Run(60*time.Second, bin, "auth", "--provider", "openai-compatible", "--apikey", "fake",
		"--modelid", "fake-model", "--baseurl", api.URL+"/v1")
	settings := filepath.Join(h.Home, ".cline", "data", "settings")
	notices := `{"shown":{"cline-cli-cline-pass-intro":true,"cline-cli-desktop-launch":true}}`
	if err := os.WriteFile(filepath.Join(settings, "cli-notices.json"), []byte(notices), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Dump("cline sessions", func() string {
		files, _ := filepath.Glob(filepath.Join(h.Home, ".cline", "data", "sessions", "*", "*.json"))
		s := ""
		for _, f := range files {
			if !strings.HasSuffix(f, ".messages.json") {
				s += "--- " + f + "\n" + tailFile(f, 40)
			}
		}
		return s
	})
	h.Dump("cline log", func() string { return tailFile(filepath.Join(h.Home, ".cline", "data", "logs", "cline.log"), 30) })
}

// StartCline runs cline (with args) in a new pane in the project folder,
// waits for its composer, and ends the hub daemon it leaves running (by
// its pid) at teardown.
func (h *Harness) StartCline(tm *Tmux, name, bin string, args ...string) *Pane {
	h.T.Helper()
	p := tm.NewPane(name, h.Project, nil, append([]string{bin}, args...)...)
	p.WaitText(2*time.Minute, ClineReady, "❯ ")
	if pid := h.ClineHub(10 * time.Second); pid != 0 {
		h.OnClose(func() { endPid(pid) })
	}
	time.Sleep(time.Second) // keys typed as it draws are lost
	return p
}

// ClineHub is the pid of the hub daemon a Cline of this harness started
// (`cline --cline-hub-daemon --cwd <project> …`), 0 if none shows within
// timeout.
func (h *Harness) ClineHub(timeout time.Duration) int {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			argv := strings.Split(string(b), "\x00")
			if len(argv) > 3 && argv[1] == "--cline-hub-daemon" && argv[2] == "--cwd" && argv[3] == h.Project {
				return pid
			}
		}
	}
	return 0
}

// endPid ends a process of the test's by pid: SIGTERM, then SIGKILL (the
// hub daemon of 3.0.65 outlives a SIGTERM for seconds).
func endPid(pid int) {
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 20 && alive(pid); i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// clineSubmitted presses Enter again while text stays in Cline's composer
// (at the first column; the chat echoes a prompt one column in), for up
// to 20 s: an Enter typed as the composer is drawn can be lost.
func clineSubmitted(t *testing.T, p *Pane, text string) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		// Look after a pause: a prompt still on its way is no lost one.
		time.Sleep(3 * time.Second)
		held := false
		for _, l := range strings.Split(p.Capture(), "\n") {
			held = held || strings.TrimRight(l, " █") == "❯ "+text
		}
		if !held {
			return
		}
		t.Logf("the prompt %q is still in the composer: Enter again", text)
		p.Keys("Enter")
	}
}
