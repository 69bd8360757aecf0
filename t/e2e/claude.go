//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwatch/ag/t/fakeapi/anthropic"
)

// Claude is the Claude Code release these tests pin: its screens, keys and
// hook payloads are what the assertions were written against
// (doc/agents/claude.md). 2.1.332 was the newest on npm on 2026-12-04.
var Claude = NPMPackage{Name: "@anthropic-ai/claude-code", Version: "2.1.332", Bin: "claude", Dir: "claude-2.1.332"}

// ClaudeOldest is the release make e2e pinned before 2.1.332 (TestClaudeOldest).
var ClaudeOldest = NPMPackage{Name: "@anthropic-ai/claude-code", Version: "2.1.197", Bin: "claude", Dir: "claude-2.1.197"}

// ClaudeKey is the fake API key; .claude.json pre-approves its last 20
// characters so the CLI does not ask about it.
const ClaudeKey = "sk-ant-fake-0123456789abcdefghij"

// Screen texts of Claude Code 2.1.332. The idle footer in manual mode
// reads "⏸ manual mode on · ? for shortcuts" (2.1.197: "? for shortcuts"
// alone); in auto mode "⏵⏵ auto mode on (shift+tab to cycle)".
const (
	ClaudeIdle     = "? for shortcuts"
	ClaudeAutoIdle = "auto mode on"
	ClaudeWorking  = "esc to interrupt"
	// ClaudeIdleAgents replaces "? for shortcuts" in the idle footer once
	// sub-agents ran (2.1.332 runs them in the background).
	ClaudeIdleAgents = "/tasks to see subagents"
	ClaudePermission = "Do you want to proceed?"
	ClaudeDenied     = "Interrupted"
)

// FakeAnthropic starts the fake Messages API (stopped at teardown; its
// request log is shown on failure) and points ANTHROPIC_BASE_URL at it.
func (h *Harness) FakeAnthropic() *anthropic.Server {
	h.T.Helper()
	return h.FakeAnthropicWith(anthropic.Options{})
}

// FakeAnthropicWith is FakeAnthropic with options (NoVerdicts: a gateway
// that drops auto mode's safety check).
func (h *Harness) FakeAnthropicWith(opts anthropic.Options) *anthropic.Server {
	h.T.Helper()
	api, err := anthropic.Start(opts)
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
// The CLI starts in manual mode, as for a user who set
// permissions.defaultMode and said "No, keep manual mode" when asked once
// to make auto mode the default (hasSeenAutoDefaultNudge); ClaudeMode
// picks another.
func (h *Harness) ClaudeConfig(dirs ...string) {
	h.T.Helper()
	projects := map[string]any{}
	for _, d := range append([]string{h.Project}, dirs...) {
		projects[d] = map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
			"allowedTools": []string{}}
	}
	cfg := map[string]any{
		"hasCompletedOnboarding":   true,
		"theme":                    "dark",
		"numStartups":              1,
		"customApiKeyResponses":    map[string]any{"approved": []string{ClaudeKey[len(ClaudeKey)-20:]}, "rejected": []string{}},
		"projects":                 projects,
		"hasSeenAutoDefaultNudge":  true,
		"hasSeenAutoDefaultNotice": true,
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
	h.ClaudeMode("default")
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

// ClaudeMode sets permissions.defaultMode in $CLAUDE_CONFIG_DIR/settings.json
// (keeping the rest): "default" is manual mode, "auto" auto mode.
func (h *Harness) ClaudeMode(mode string) {
	h.T.Helper()
	h.editClaudeSettings(func(s map[string]any) {
		perms, _ := s["permissions"].(map[string]any)
		if perms == nil {
			perms = map[string]any{}
		}
		perms["defaultMode"] = mode
		s["permissions"] = perms
	})
}

// editClaudeSettings changes $CLAUDE_CONFIG_DIR/settings.json with edit.
func (h *Harness) editClaudeSettings(edit func(map[string]any)) {
	h.T.Helper()
	p := filepath.Join(h.Home, ".claude", "settings.json")
	s := map[string]any{}
	if b, err := os.ReadFile(p); err == nil {
		if err := json.Unmarshal(b, &s); err != nil {
			h.T.Fatalf("%s: %v", p, err)
		}
	}
	edit(s)
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		h.T.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		h.T.Fatal(err)
	}
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
	h.editClaudeSettings(func(s map[string]any) { s["hooks"] = hooks })
	h.Dump("recorded hook payloads", func() string { return tailFile(out, 100) })
	return out
}

// ClaudeType types a prompt at Claude's composer and sees it sent. Claude
// Code 2.1.332 now and then leaves a prompt typed just after it started
// (a loaded machine; a forked session) in the composer, its Enter taken by
// nothing: a person presses Enter again, and so does this, once, when the
// prompt has sat there 3 s with nothing at work.
func ClaudeType(p *Pane, text string) {
	p.tm.h.T.Helper()
	p.Type(text)
	since := time.Time{}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if !inComposer(p.Capture(), text) {
			return
		}
		if since.IsZero() {
			since = time.Now()
		}
		if time.Since(since) >= 3*time.Second {
			p.tm.h.T.Logf("Claude left %q in its composer: Enter again", text)
			p.Keys("Enter")
			return
		}
	}
}

// inComposer reports whether screen shows text in Claude's composer (the
// ❯ line with a rule right under it) and nothing at work.
func inComposer(screen, text string) bool {
	if strings.Contains(screen, ClaudeWorking) {
		return false
	}
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "❯ "+text && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "───") {
			return true
		}
	}
	return false
}
