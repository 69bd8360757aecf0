//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agwatch/ag/t/fakeapi/chat"
)

// Pi and omp are the releases these tests pin (research/agents-live.md
// §4b; omp 18.3.4 pins a sibling package the registry here lacks).
var (
	Pi  = NPMPackage{Name: "@mariozechner/pi-coding-agent", Version: "0.73.1", Bin: "pi", Dir: "pi-0.73.1"}
	Omp = NPMPackage{Name: "@oh-my-pi/pi-coding-agent", Version: "18.2.3", Bin: "omp", Dir: "omp-18.2.3",
		Also: []string{"bun@1.4.5"}} // npm's bun package ships the runtime the shim runs
)

// Screen texts of Pi 0.73.1 and omp 18.2.3.
const (
	PiReady     = "fake-model"   // the footer names the model once configured
	OmpReady    = "Fake Model"   // its status line
	OmpApproval = "Allow tool: " // omp's approval dialog
)

// PiModels writes a models.json with the fake provider (its model's
// window declared: 128,000 tokens) into the agent directory dir.
func (h *Harness) PiModels(api *chat.Server, dir string) {
	h.T.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.T.Fatal(err)
	}
	models := fmt.Sprintf(`{"providers": {"fake": {"baseUrl": %q, "api": "openai-completions", "apiKey": "fake",
  "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
  "models": [{"id": "fake-model", "name": "Fake Model", "reasoning": false, "contextWindow": 128000, "maxTokens": 4096}]}}}
`, api.URL+"/v1")
	if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(models), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Dump("sessions in "+dir, func() string {
		files, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*.jsonl"))
		s := ""
		for _, f := range files {
			s += "--- " + f + "\n" + tailFile(f, 40)
		}
		return s
	})
}

// PiConfig configures Pi (~/.pi/agent): the fake provider as default, no
// downloads, no version check.
func (h *Harness) PiConfig(api *chat.Server) string {
	h.T.Helper()
	dir := filepath.Join(h.Home, ".pi", "agent")
	h.PiModels(api, dir)
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"defaultProvider": "fake", "defaultModel": "fake-model"}`), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Setenv("PI_OFFLINE", "1")
	h.Setenv("PI_SKIP_VERSION_CHECK", "1")
	return dir
}

// OmpConfig configures omp (~/.omp/agent; models.json, which omp
// migrates to models.yml and keeps): no setup wizard, no update check (it
// asks the npm registry at every start, and a test talks to 127.0.0.1
// only), and the bun that npm installed beside it (bin's folder) on PATH,
// as its shim wants.
func (h *Harness) OmpConfig(api *chat.Server, bin string) string {
	h.T.Helper()
	h.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+h.Getenv("PATH"))
	dir := filepath.Join(h.Home, ".omp", "agent")
	h.PiModels(api, dir)
	if err := os.WriteFile(filepath.Join(dir, "config.yml"), []byte("startup:\n  checkUpdate: false\n"), 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Setenv("OMP_SKIP_SETUP", "1")
	h.Setenv("PI_OFFLINE", "1")
	h.Setenv("PI_SKIP_VERSION_CHECK", "1")
	return dir
}

// StartPi runs pi (with args) in a new pane in the project folder and
// waits for it.
func (h *Harness) StartPi(tm *Tmux, name, bin string, args ...string) *Pane {
	h.T.Helper()
	p := tm.NewPane(name, h.Project, nil, append([]string{bin}, args...)...)
	p.WaitText(90*time.Second, PiReady)
	return p
}

// StartOmp runs omp (with args) on the fake model, asking before every
// tool call.
func (h *Harness) StartOmp(tm *Tmux, name, bin string, args ...string) *Pane {
	h.T.Helper()
	// What npm's shim (#!/usr/bin/env bun) runs: bun with the shim's
	// path as argv[1], the bun npm installed beside it.
	bun := filepath.Join(filepath.Dir(bin), "bun")
	argv := append([]string{bun, bin, "--model", "fake/fake-model", "--approval-mode", "always-ask"}, args...)
	p := tm.NewPane(name, h.Project, nil, argv...)
	p.WaitText(90*time.Second, OmpReady)
	return p
}
