//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude"
)

// TestClaudeStatusline runs Claude Code with a statusLine of the user's own
// (a recording command), installs ag with --statusline, and checks that
// Claude runs `ag-hook statusline --then <theirs>`: the user's line is what
// the screen shows, the payload reached their command unchanged, and the
// meter (model, cost, context) reaches ag-fold's state through the spool.
// Uninstall gives the user's statusLine back.
func TestClaudeStatusline(t *testing.T) {
	t.Parallel()
	bin := Install(t, Claude)
	CheckVersion(t, bin, Claude.Version)
	h := New(t)
	h.FakeAnthropic()
	h.ClaudeConfig()

	// The user's statusLine: records each payload, prints its own line.
	rec := filepath.Join(h.Root, "statusline.jsonl")
	script := filepath.Join(h.Root, "my status")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n{ cat; echo; } >> '"+rec+"'\necho \"MY-STATUS-LINE $AG_E2E_MARK\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Setenv("AG_E2E_MARK", "env-passed")
	h.Dump("the user's statusLine payloads", func() string { return tailFile(rec, 20) })
	userCmd := "'" + script + "' --x"
	settingsPath := filepath.Join(h.Home, ".claude", "settings.json")
	orig, _ := json.MarshalIndent(map[string]any{"statusLine": map[string]any{"type": "command", "command": userCmd, "padding": 0}}, "", "  ")
	orig = append(orig, '\n')
	if err := os.WriteFile(settingsPath, orig, 0o600); err != nil {
		t.Fatal(err)
	}

	hook := Bin(t, "ag-hook")
	h.Run(30*time.Second, hook, "install", "--agent", "claude", "--statusline")
	out := h.Run(30*time.Second, hook, "status", "--agent", "claude", "--verbose")
	if !strings.Contains(out, ", with the statusLine") || !strings.Contains(out, "  statusLine: runs ag-hook statusline (then "+userCmd+")") {
		t.Errorf("ag-hook status:\n%s", out)
	}
	var cfg struct {
		StatusLine struct{ Command string } `json:"statusLine"`
	}
	b, _ := os.ReadFile(settingsPath)
	if err := json.Unmarshal(b, &cfg); err != nil || !strings.Contains(cfg.StatusLine.Command, "statusline --then ") {
		t.Fatalf("settings.json after install --statusline: %v\n%s", err, b)
	}

	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	tm := h.StartTmux()
	// Claude runs the statusLine at start: the user's line shows (where
	// the idle hint StartClaude waits for would be).
	pane := tm.NewPane("claude", h.Project, nil, bin)
	pane.WaitText(60*time.Second, "MY-STATUS-LINE env-passed")
	s := pl.Out.Session(claude.ID, "")

	pane.Type("say hello")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	pane.WaitText(10*time.Second, "FAKE-REPLY: say hello")

	// After the reply Claude runs it again, now with usage: the meter ag
	// appends (cost and rate limits only the statusline knows) reaches
	// the fold.
	spoolPath := filepath.Join(h.AGDir, "spool.ndjson")
	var last event.Event
	n := 0
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		n = 0
		for _, line := range strings.Split(tailFile(spoolPath, 1000), "\n") {
			var e event.Event
			if event.Decode([]byte(line), &e) == nil && e.Src == event.SrcStatusline {
				last, n = e, n+1
			}
		}
		if last.Context != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no statusline meter with a context in the spool after 30s (%d without)", n)
		}
	}
	if last.Kind != event.Meter || last.Session != s.ID || last.Pane != pane.ID || last.PID != pane.PID ||
		!strings.HasPrefix(last.Model, "claude-") || last.CostUSD == nil || last.Context == nil || last.Context.Used <= 0 || last.Context.Size <= 0 {
		t.Fatalf("statusline meter: %s", event.Marshal(&last))
	}
	t.Logf("%d statusline meters; last: %s", n, event.Marshal(&last))
	pl.Out.Await(t, "with the statusline's cost and context", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.CostUSD != nil && *e.CostUSD == *last.CostUSD &&
			e.Context != nil && e.Context.Used == last.Context.Used && e.Context.Size == last.Context.Size && e.Model == last.Model
	})

	// The user's command got Claude's payload unchanged.
	got := h.WaitFile(rec, 5*time.Second, `"session_id":"`+s.ID+`"`)
	var p struct {
		Session string `json:"session_id"`
		Model   struct {
			ID string `json:"id"`
		} `json:"model"`
	}
	first, _, _ := strings.Cut(strings.TrimSpace(got), "\n")
	if err := json.Unmarshal([]byte(first), &p); err != nil || p.Session != s.ID || p.Model.ID == "" {
		t.Errorf("the user's command read %q (%v)", first, err)
	}
	// ag's own line never showed: theirs did.
	if screen := pane.Capture(); strings.Contains(screen, "context left") || !strings.Contains(screen, "MY-STATUS-LINE") {
		t.Errorf("screen:\n%s", screen)
	}

	h.Run(30*time.Second, hook, "uninstall", "--agent", "claude")
	if b, _ := os.ReadFile(settingsPath); strings.TrimSpace(string(b)) != strings.TrimSpace(string(orig)) {
		t.Errorf("after uninstall:\n%s\nwant:\n%s", b, orig)
	}
}
