//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/providers/qwen"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Qwen is the Qwen Code release these tests pin (doc/agents/qwen.md).
var Qwen = NPMPackage{Name: "@qwen-code/qwen-code", Version: "0.24.4", Bin: "qwen", Dir: "qwen-0.24.4"}

// Screen texts of Qwen Code 0.24.4.
const (
	QwenIdle       = "Type your message or @path/to/file"
	QwenWorking    = "esc to cancel"
	QwenPermission = "Yes, allow once"
	QwenReady      = "fake-model" // the footer names the model once configured
)

// QwenConfig writes ~/.qwen/settings.json so the CLI starts at its
// composer against the fake: the OpenAI auth type, folder trust off, no
// statistics, telemetry or update check, the status in the title, and the
// "default" approval mode (0.24.4's default is "auto", whose LLM
// classifier the fake cannot be). The environment names the fake.
func (h *Harness) QwenConfig(api *chat.Server) string {
	h.T.Helper()
	dir := filepath.Join(h.Home, ".qwen")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.T.Fatal(err)
	}
	settings := map[string]any{
		"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}, "folderTrust": map[string]any{"enabled": false}},
		"model":     map[string]any{"name": "fake-model"},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"general":   map[string]any{"enableAutoUpdate": false},
		"ui":        map[string]any{"showStatusInTitle": true, "autoModeAcknowledged": true},
		"tools":     map[string]any{"approvalMode": "default"},
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		h.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), append(b, '\n'), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Setenv("OPENAI_API_KEY", "fake")
	h.Setenv("OPENAI_BASE_URL", api.URL+"/v1")
	h.Setenv("OPENAI_MODEL", "fake-model")
	h.Dump("qwen settings.json", func() string { return tailFile(filepath.Join(dir, "settings.json"), 200) })
	h.Dump("qwen chats", func() string {
		files, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "chats", "*.jsonl"))
		s := ""
		for _, f := range files {
			s += "--- " + f + "\n" + tailFile(f, 20)
		}
		return s
	})
	return dir
}

// QwenType types a prompt at Qwen's idle composer (cleared first: an
// Escape puts the cancelled prompt back in it).
func (p *Pane) QwenType(text string) {
	p.tm.h.T.Helper()
	p.Keys("C-u")
	p.typeWhenIdle(text, []string{QwenWorking, QwenPermission}, qwenComposerHolds)
}

// qwenComposerHolds: the line between the last two rules is "> text".
func qwenComposerHolds(screen, text string) bool {
	lines := strings.Split(screen, "\n")
	var rules []int
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "────────") {
			rules = append(rules, i)
		}
	}
	if len(rules) < 2 {
		return false
	}
	return lineHolds(strings.Join(lines[rules[len(rules)-2]+1:rules[len(rules)-1]], "\n"), ">", text)
}

// newQwenWorld starts Qwen Code against the fake Chat Completions API
// (returned) in a pane named name, with ag's hooks installed and the
// login pipeline.
func newQwenWorld(t *testing.T, name string) (*loginWorld, *chat.Server) {
	t.Helper()
	bin := Install(t, Qwen)
	CheckVersion(t, bin, Qwen.Version)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	h.QwenConfig(api)
	w := &loginWorld{h: h, bin: bin, notify: true}
	w.start(qwen.ID, func() *Pane {
		p := w.tm.NewPane(name, h.Project, nil, bin)
		p.prompt = p.QwenType
		p.WaitText(90*time.Second, QwenIdle, QwenReady)
		time.Sleep(time.Second)
		return p
	})
	return w, api
}
