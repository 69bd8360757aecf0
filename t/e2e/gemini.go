//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/providers/gemini"
	fakegemini "github.com/agwatch/ag/t/fakeapi/gemini"
)

// Gemini is the Gemini CLI release these tests pin: its screens, keys,
// hook payloads and chats are what the assertions were written against
// (research/agents-live.md §3).
var Gemini = NPMPackage{Name: "@google/gemini-cli", Version: "0.61.0", Bin: "gemini", Dir: "gemini-0.61.0"}

// Screen texts of Gemini CLI 0.61.0.
const (
	GeminiIdle       = "Type your message or @path/to/file"
	GeminiShortcuts  = "? for shortcuts"
	GeminiWorking    = "esc to cancel"
	GeminiPermission = "Allow execution of [Shell]?"
	GeminiDenied     = "Request cancelled."
)

// FakeGemini starts the fake Gemini API (stopped at teardown; its request
// log is shown on failure) and points the CLI at it: GOOGLE_GEMINI_BASE_URL
// and a GEMINI_API_KEY (with auth type gemini-api-key in settings.json,
// sent as x-goog-api-key).
func (h *Harness) FakeGemini(opts fakegemini.Options) *fakegemini.Server {
	h.T.Helper()
	api, err := fakegemini.Start(opts)
	if err != nil {
		h.T.Fatal(err)
	}
	h.OnClose(func() { api.Close() })
	h.addFake("Gemini", api)
	h.Setenv("GOOGLE_GEMINI_BASE_URL", api.URL)
	h.Setenv("GEMINI_API_KEY", "fake")
	return api
}

// GeminiConfig writes Gemini's settings.json so the CLI starts at its
// composer: the API-key auth type, folder trust off (no trust dialog; and
// Gemini runs no hooks at all in a folder it does not trust), no usage
// statistics, telemetry or update checks, the context percentage shown in
// the footer. With ownHome, the folder is under GEMINI_CLI_HOME (Gemini's
// own home override, another folder than $HOME), else in $HOME. It returns
// the .gemini folder.
func (h *Harness) GeminiConfig(ownHome bool) string {
	h.T.Helper()
	base := h.Home
	if ownHome {
		base = filepath.Join(h.Root, "gemini-home")
		h.Setenv("GEMINI_CLI_HOME", base)
	}
	dir := filepath.Join(base, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.T.Fatal(err)
	}
	settings := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"ui":        map[string]any{"theme": "Default", "footer": map[string]any{"hideContextPercentage": false}},
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		h.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), append(b, '\n'), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Dump("gemini settings.json", func() string { return tailFile(filepath.Join(dir, "settings.json"), 200) })
	h.Dump("gemini chats", func() string {
		files, _ := filepath.Glob(filepath.Join(dir, "tmp", "*", "chats", "session-*"))
		s := ""
		for _, f := range files {
			s += "--- " + f + "\n" + tailFile(f, 40)
		}
		return s
	})
	return dir
}

// StartGemini runs gemini (with args) in a new pane in the project folder
// and waits for its composer; typing before it is drawn is lost.
func (h *Harness) StartGemini(tm *Tmux, name, bin string, args ...string) *Pane {
	h.T.Helper()
	p := tm.NewPane(name, h.Project, nil, append([]string{bin}, args...)...)
	p.prompt = p.GeminiType
	p.WaitText(90*time.Second, GeminiIdle, GeminiShortcuts)
	time.Sleep(time.Second)
	return p
}

// GeminiType types a prompt at Gemini's composer and presses Enter again
// while the prompt is still in the composer 5 s later (three times at
// most): Gemini reads an Enter its busy event loop takes within 30 ms of
// the text as a newline (seen on a loaded machine, at its start and as a
// turn ends). Submitted means the prompt shows in the history above
// the composer, or Gemini works, asks, or shows the dialog a command
// opened (a slash command: its composer empty again); a capture may catch
// Gemini mid-redraw or before it drew the typed text, so nothing less
// counts.
//
// It first waits for the composer with no spinner above it: the hooks of
// the turn before (AfterAgent) run after ag already folded the turn done,
// and while "Executing Hooks" shows Gemini takes typed text but drops the
// Enter.
func (p *Pane) GeminiType(text string) {
	p.tm.h.T.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if s := p.Capture(); strings.Contains(s, GeminiIdle) && !strings.Contains(s, GeminiWorking) {
			break
		}
	}
	p.Type(text)
	for try := 0; try < 3; try++ {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if s := p.Capture(); submitted(s, text) {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		if !composerHolds(p.Capture(), text) {
			return
		}
		p.tm.h.T.Logf("pane %s: the prompt %q was not submitted: Enter again; the screen:\n%s", p.ID, text, p.Capture())
		p.Keys("Enter")
	}
}

func submitted(screen, text string) bool {
	if composerHolds(screen, text) {
		return false
	}
	if containsAny(screen, GeminiWorking, GeminiPermission, "Chat Sessions") {
		return true
	}
	if strings.HasPrefix(text, "/") {
		return strings.Contains(screen, GeminiIdle)
	}
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "────────") {
			for _, l := range lines[:i] {
				if strings.TrimSpace(l) == "> "+text {
					return true
				}
			}
			break
		}
	}
	return false
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func composerHolds(screen, text string) bool {
	lines := strings.Split(screen, "\n")
	last := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "────────") {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	for _, l := range lines[last+1:] {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, ">") && strings.Contains(t, text) {
			return true
		}
	}
	return false
}

// newGeminiWorld starts Gemini CLI (against the fake Gemini API, returned)
// in a pane named name, with ag's hooks installed and the login pipeline.
func newGeminiWorld(t *testing.T, name string, ownHome bool, opts fakegemini.Options) (*loginWorld, *fakegemini.Server) {
	t.Helper()
	bin := Install(t, Gemini)
	CheckVersion(t, bin, Gemini.Version)
	h := New(t)
	api := h.FakeGemini(opts)
	h.GeminiConfig(ownHome)
	w := &loginWorld{h: h, bin: bin}
	w.start(gemini.ID, func() *Pane { return h.StartGemini(w.tm, name, bin) })
	return w, api
}
