//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/agwatch/ag/t/fakeapi/anthropic"
)

// Claude is the Claude Code release these tests pin: its screens, keys and
// hook payloads are what the assertions were written against
// (research/agents-live.md §1).
var Claude = NPMPackage{Name: "@anthropic-ai/claude-code", Version: "2.1.197", Bin: "claude", Dir: "claude-2.1.197"}

// ClaudeKey is the fake API key; .claude.json pre-approves its last 20
// characters so the CLI does not ask about it.
const ClaudeKey = "sk-ant-fake-0123456789abcdefghij"

// Screen texts of Claude Code 2.1.197.
const (
	ClaudeIdle       = "? for shortcuts"
	ClaudeWorking    = "esc to interrupt"
	ClaudePermission = "Do you want to proceed?"
	ClaudeDenied     = "Interrupted"
)

// FakeAnthropic starts the fake Messages API (stopped at teardown; its
// request log is shown on failure) and points ANTHROPIC_BASE_URL at it.
func (h *Harness) FakeAnthropic() *anthropic.Server {
	h.T.Helper()
	api, err := anthropic.Start(anthropic.Options{})
	if err != nil {
		h.T.Fatal(err)
	}
	h.OnClose(func() { api.Close() })
	h.addFake("Anthropic", api)
	h.Setenv("ANTHROPIC_BASE_URL", api.URL)
	h.Setenv("ANTHROPIC_API_KEY", ClaudeKey)
	// No traffic but the model's, and nothing that asks questions.
	for _, k := range []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "DISABLE_TELEMETRY",
		"DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING"} {
		h.Setenv(k, "1")
	}
	return api
}

// ClaudeConfig writes $HOME/.claude.json so the CLI starts straight at its
// composer: onboarding done, theme chosen, the API key approved, and dirs
// trusted. It also sets CLAUDE_CONFIG_DIR=$HOME/.claude, the folder the
// CLI uses by default, so ag-hook and ag-tail look where the CLI writes.
func (h *Harness) ClaudeConfig(dirs ...string) {
	h.T.Helper()
	projects := map[string]any{}
	for _, d := range append([]string{h.Project}, dirs...) {
		projects[d] = map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
			"allowedTools": []string{}}
	}
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"theme":                  "dark",
		"numStartups":            1,
		"customApiKeyResponses":  map[string]any{"approved": []string{ClaudeKey[len(ClaudeKey)-20:]}, "rejected": []string{}},
		"projects":               projects,
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		h.T.Fatal(err)
	}
	dir := filepath.Join(h.Home, ".claude")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		h.T.Fatal(err)
	}
	// With CLAUDE_CONFIG_DIR set the CLI reads .claude.json there, without
	// it from $HOME: write both, so either way it starts the same.
	for _, p := range []string{filepath.Join(h.Home, ".claude.json"), filepath.Join(dir, ".claude.json")} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			h.T.Fatal(err)
		}
	}
	h.Setenv("CLAUDE_CONFIG_DIR", dir)
	h.Dump("claude settings.json", func() string { return tailFile(filepath.Join(dir, "settings.json"), 200) })
	h.Dump("claude transcripts", func() string {
		files, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl"))
		s := ""
		for _, f := range files {
			s += "--- " + f + "\n" + tailFile(f, 60)
		}
		return s
	})
}

// StartClaude runs the claude command bin (with args) in a new pane in the project
// folder and waits for its idle composer.
func (h *Harness) StartClaude(tm *Tmux, name, bin string, args ...string) *Pane {
	h.T.Helper()
	p := tm.NewPane(name, h.Project, nil, append([]string{bin}, args...)...)
	p.WaitText(60*time.Second, ClaudeIdle)
	return p
}

// RecordClaudeHooks configures every hook event in events to run a shell
// script that appends its stdin (the payload) to the returned file, one
// payload per line: how the CLI's own hooks are checked without ag.
func (h *Harness) RecordClaudeHooks(events ...string) string {
	h.T.Helper()
	out := filepath.Join(h.Root, "hooks.jsonl")
	script := filepath.Join(h.Root, "record-hook")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n{ cat; echo; } >> '"+out+"'\n"), 0o755); err != nil {
		h.T.Fatal(err)
	}
	hooks := map[string]any{}
	for _, ev := range events {
		hooks[ev] = []any{map[string]any{"matcher": "*",
			"hooks": []any{map[string]string{"type": "command", "command": script}}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": hooks})
	if err := os.WriteFile(filepath.Join(h.Home, ".claude", "settings.json"), b, 0o600); err != nil {
		h.T.Fatal(err)
	}
	h.Dump("recorded hook payloads", func() string { return tailFile(out, 100) })
	return out
}
