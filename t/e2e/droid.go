//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agwatch/ag/providers/droid"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Droid is the Factory Droid release these tests pin: npm's @factory/cli
// 0.225.1 names platform packages of its own version that the registry
// does not hold; the current binary, 0.225.2, is installed beside it
// (linux-x64, what CI runs on), and the package's shim finds it.
var Droid = NPMPackage{Name: "@factory/cli", Version: "0.225.1", Bin: "droid", Dir: "factory-0.225.2",
	Also: []string{"@factory/cli-linux-x64@0.225.2"}}

// DroidVersion is what the binary says it is.
const DroidVersion = "0.225.2"

// Screen texts of droid 0.225.2.
const (
	DroidReady      = "? for help"
	DroidTrust      = "Trust this folder?"
	DroidWorking    = "Press ESC to stop"
	DroidPermission = "Enter select"
)

// DroidConfig writes ~/.factory/settings.json with one BYOK model on the
// fake Chat Completions server, and sets FACTORY_AIRGAP_ENABLED, without
// which the TUI wants a Factory login.
func (h *Harness) DroidConfig(api *chat.Server) string {
	h.T.Helper()
	dir := filepath.Join(h.Home, ".factory")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.T.Fatal(err)
	}
	settings := map[string]any{"customModels": []any{map[string]any{
		"model": "fake-model", "displayName": "Fake Model", "baseUrl": api.URL + "/v1", "apiKey": "fake",
		"provider": "generic-chat-completion-api", "maxOutputTokens": 4096}}}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		h.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), append(b, '\n'), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Setenv("FACTORY_AIRGAP_ENABLED", "1")
	h.Dump("droid settings.json", func() string { return tailFile(filepath.Join(dir, "settings.json"), 200) })
	h.Dump("droid sessions", func() string {
		files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*"))
		s := ""
		for _, f := range files {
			s += "--- " + f + "\n" + tailFile(f, 10)
		}
		return s
	})
	return dir
}

// DroidType types a prompt at droid's composer once it is idle.
func (p *Pane) DroidType(text string) {
	p.tm.h.T.Helper()
	p.typeWhenIdle(text, []string{DroidWorking, DroidPermission}, func(screen, text string) bool {
		return lineHolds(screen, "│ >", text)
	})
}

// newDroidWorld starts droid against the fake Chat Completions API
// (returned) in a pane named name, with ag's hooks installed and the
// login pipeline; the folder is trusted at the prompt droid asks first.
func newDroidWorld(t *testing.T, name string) (*loginWorld, *chat.Server) {
	t.Helper()
	bin := Install(t, Droid)
	CheckVersion(t, bin, DroidVersion)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	h.DroidConfig(api)
	w := &loginWorld{h: h, bin: bin, notify: true}
	w.start(droid.ID, func() *Pane {
		p := w.tm.NewPane(name, h.Project, nil, bin)
		p.prompt = p.DroidType
		p.WaitText(90*time.Second, DroidTrust)
		p.Keys("Enter")
		p.WaitText(60*time.Second, DroidReady, "Fake Model")
		time.Sleep(time.Second)
		return p
	})
	return w, api
}
