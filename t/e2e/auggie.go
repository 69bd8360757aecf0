//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwatch/ag/t/fakeapi/augment"
)

// Auggie is the Auggie (Augment CLI) release these tests pin
// (research/agents-new.md, t/fakeapi/README.md).
var Auggie = NPMPackage{Name: "@augmentcode/auggie", Version: "0.36.0", Bin: "auggie", Dir: "auggie-0.36.0"}

// Screen texts of Auggie 0.36.0.
const (
	AuggieIdle       = "? to show shortcuts"
	AuggieWorking    = "esc to interrupt"
	AuggiePermission = "Tool Approval Required"
	AuggieKeys       = "[A]llow [D]eny"
	AuggieDenied     = "Tool Permission Denied"
	AuggieEscaped    = "Interrupted by the user"
	AuggieAPIError   = "API Error:"
)

// AuggieArgs are the arguments every Auggie here starts with: commands
// ask before they run (Auggie's default runs them at once), on the fake's
// model.
var AuggieArgs = []string{"--permission", "launch-process:ask-user", "-m", augment.Model}

// FakeAugment starts the fake Augment backend (stopped at teardown; its
// request log is shown on failure) and points Auggie at it with
// AUGMENT_SESSION_AUTH: no login.
func (h *Harness) FakeAugment(opts augment.Options) *augment.Server {
	h.T.Helper()
	api, err := augment.Start(opts)
	if err != nil {
		h.T.Fatal(err)
	}
	h.OnClose(func() { api.Close() })
	h.addFake("Augment", api)
	h.Setenv("AUGMENT_SESSION_AUTH", api.AuthJSON())
	h.Setenv("AUGMENT_DISABLE_AUTO_UPDATE", "1")
	return api
}

// AuggieConfig writes ~/.augment so Auggie starts at its composer: the
// onboarding (a welcome, three tips) seen, and the project never indexed
// (no indexing dialog). It returns the folder.
func (h *Harness) AuggieConfig() string {
	h.T.Helper()
	dir := filepath.Join(h.Home, ".augment")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.T.Fatal(err)
	}
	for name, v := range map[string]any{
		".auggie.json":  map[string]any{"sessionCount": 1, "onboardingVersion": "1.0.0"},
		"settings.json": map[string]any{"indexingDenyDirs": []string{h.Project}},
	} {
		b, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o600); err != nil {
			h.T.Fatal(err)
		}
	}
	h.Dump("auggie settings.json", func() string { return tailFile(filepath.Join(dir, "settings.json"), 100) })
	h.Dump("auggie sessions", func() string {
		files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*.json"))
		s := ""
		for _, f := range files {
			s += "--- " + f + "\n" + tailFile(f, 30)
		}
		return s
	})
	return dir
}

// StartAuggie runs auggie (AuggieArgs, then args) in a new pane in the
// project folder and waits for its composer.
func (h *Harness) StartAuggie(tm *Tmux, name, bin string, args ...string) *Pane {
	h.T.Helper()
	p := tm.NewPane(name, h.Project, nil, append(append([]string{bin}, AuggieArgs...), args...)...)
	p.prompt = p.AuggieType
	p.WaitText(90*time.Second, AuggieIdle)
	time.Sleep(time.Second) // it loads its tools after drawing: an early Enter is lost
	return p
}

// AuggieType types a prompt at Auggie's composer once nothing is at work,
// and presses Enter again while the text is still in the composer 5 s
// later (three times at most): an Enter that reaches Auggie in one read
// with the text is a newline in the prompt (seen at its start), and a
// slash command's menu takes the first Enter.
func (p *Pane) AuggieType(text string) {
	p.tm.h.T.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if s := p.Capture(); strings.Contains(s, AuggieIdle) && !strings.Contains(s, AuggieWorking) {
			break
		}
	}
	p.Type(text)
	for try := 0; try < 3; try++ {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if !auggieHolds(p.Capture(), text) {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		p.tm.h.T.Logf("pane %s: the prompt %q was not submitted: Enter again; the screen:\n%s", p.ID, text, p.Capture())
		p.Keys("Enter")
	}
}

// auggieHolds reports whether Auggie's composer (the last line after a
// rule that starts "›", or "/" with a slash command's menu open) holds
// text: typed, not sent.
func auggieHolds(screen, text string) bool {
	first := strings.TrimSpace(strings.SplitN(text, "\n", 2)[0])
	if strings.HasPrefix(first, "/") {
		first = "/ " + strings.TrimPrefix(first, "/") // the menu's spelling
	}
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	for i := len(lines) - 1; i > 0; i-- {
		l := strings.TrimSpace(lines[i])
		if (strings.HasPrefix(l, "›") || strings.HasPrefix(l, "/")) && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "────────") {
			return strings.Contains(strings.Join(lines[i:], "\n"), first) || strings.Contains(l, strings.TrimSpace(text))
		}
	}
	return false
}
