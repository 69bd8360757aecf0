//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/t/fakeapi/anthropic"
)

// TestClaudeFakeAPI checks the ground the other tests stand on: the pinned
// CLI installs, starts, and talks to the fake API (print mode, no ag).
func TestClaudeFakeAPI(t *testing.T) {
	t.Parallel()
	bin := Install(t, Claude)
	CheckVersion(t, bin, Claude.Version)
	h := New(t)
	api := h.FakeAnthropic()
	h.ClaudeConfig()
	out := h.Run(60*time.Second, bin, "-p", "say hello")
	if !strings.Contains(out, "FAKE-REPLY: say hello") {
		t.Errorf("claude -p printed %q", out)
	}
	var main int
	for _, r := range api.Requests() {
		if r.Path == "/v1/messages?beta=true" && r.Tools > 0 && r.Prompt == "say hello" {
			main++
		}
	}
	if main != 1 {
		t.Errorf("want one main-turn request for the prompt:\n%s", api.Log())
	}
}

// mainModel is the model the CLI asked for the main turn of prompt.
func mainModel(api *anthropic.Server, prompt string) string {
	for _, r := range api.Requests() {
		if r.Tools > 0 && r.Last == prompt {
			return r.Model
		}
	}
	return ""
}

// TestClaudeHooks checks what the pinned CLI does on its own, with a
// recording hook and no ag: the screens the tests wait for, the keys they
// send, and the hooks ag-hook relies on. When a Claude Code upgrade breaks
// TestClaude, this says whether the CLI or ag moved.
func TestClaudeHooks(t *testing.T) {
	t.Parallel()
	bin := Install(t, Claude)
	h := New(t)
	h.FakeAnthropic()
	h.ClaudeConfig()
	rec := h.RecordClaudeHooks("SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
		"PostToolUse", "Stop")
	tm := h.StartTmux()
	pane := h.StartClaude(tm, "claude", bin)
	h.WaitFile(rec, 10*time.Second, `"hook_event_name":"SessionStart"`)
	pane.Type("RUN: echo marker > marker.txt")
	pane.WaitText(20*time.Second, ClaudePermission, "echo marker > marker.txt")
	h.WaitFile(rec, 5*time.Second, `"hook_event_name":"PermissionRequest"`)
	pane.Keys("1")
	got := h.WaitFile(rec, 20*time.Second, `"hook_event_name":"Stop"`)
	pane.WaitText(10*time.Second, "FAKE-REPLY: the command finished", ClaudeIdle)
	if _, err := os.Stat(filepath.Join(h.Project, "marker.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	var names []string
	for _, line := range strings.Split(got, "\n") {
		var p struct {
			Event string `json:"hook_event_name"`
		}
		if json.Unmarshal([]byte(line), &p) == nil && p.Event != "" {
			names = append(names, p.Event)
		}
	}
	want := "SessionStart UserPromptSubmit PreToolUse PermissionRequest PostToolUse Stop"
	if strings.Join(names, " ") != want {
		t.Errorf("hooks fired: %s\nwant:        %s", strings.Join(names, " "), want)
	}
}

// TestClaude runs Claude Code in tmux with ag's hooks installed and the
// login pipeline (ag-tail --follow | ag-fold) watching, and checks the
// states ag reports for a plain turn, an approved tool and a denied one.
func TestClaude(t *testing.T) {
	t.Parallel()
	testClaude(t, Claude)
}

// TestClaudeOldest runs TestClaude's turn, approve and deny on the release
// make e2e pinned before 2.1.332, whose prompts and footers differ
// (doc/agents/claude.md): a second lane that costs one install and ~15 s.
func TestClaudeOldest(t *testing.T) {
	t.Parallel()
	if lifted(ClaudeOldest) {
		t.Skip("make e2e-newest: the newest release is TestClaude's")
	}
	testClaude(t, ClaudeOldest)
}

func testClaude(t *testing.T, pkg NPMPackage) {
	bin := Install(t, pkg)
	CheckVersion(t, bin, pkg.Version)
	begin := time.Now()
	step := func(name string) func() {
		t0 := time.Now()
		t.Logf("-- %s", name)
		return func() { t.Logf("   %s took %s", name, time.Since(t0).Round(time.Millisecond)) }
	}

	h := New(t)
	api := h.FakeAnthropic()
	h.ClaudeConfig()
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "claude")
	h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "claude") // exit 0: installed
	settings, err := os.ReadFile(filepath.Join(h.Home, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), "ag-hook") {
		t.Fatalf("ag-hook install --agent claude left no ag-hook in settings.json: %v\n%s", err, settings)
	}
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	tm := h.StartTmux()
	done := step("start claude")
	pane := h.StartClaude(tm, "claude", bin)
	done()
	s := pl.Out.Session(claude.ID, "")

	done = step("plain prompt: idle/— → working → done")
	pane.Type("say hello SLOW:2s")
	w := s.Expect(t, 30*time.Second, event.StatusWorking)[0]
	// The fake holds the reply 2s: the screen agrees while ag says working.
	pane.WaitText(2*time.Second, ClaudeWorking)
	s.Expect(t, 30*time.Second, event.StatusDone)
	// Where the session runs, as the hooks found it.
	if w.Prompt != "say hello SLOW:2s" || w.Pane != pane.ID || w.PID != pane.PID || w.TTY != pane.TTY || w.Cwd != h.Project {
		t.Errorf("working state: prompt %q pane %q pid %d tty %q cwd %q\nwant: %q, %s, %d, %s, %s",
			w.Prompt, w.Pane, w.PID, w.TTY, w.Cwd, "say hello SLOW:2s", pane.ID, pane.PID, pane.TTY, h.Project)
	}
	if _, err := os.Stat(w.Transcript); err != nil {
		t.Errorf("working state: transcript %q: %v", w.Transcript, err)
	}
	pane.WaitText(10*time.Second, "FAKE-REPLY: say hello SLOW:2s")
	meter := pl.Out.Await(t, "with model and context size", 15*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Model != "" && e.Context != nil && e.Context.Size > 0
	})
	if want := mainModel(api, "say hello SLOW:2s"); want == "" || meter.Model != want {
		t.Errorf("state model %q, want %q (the CLI's default, echoed by the fake)", meter.Model, want)
	}
	if sz := meter.Context.Size; sz != 200000 && sz != 1000000 {
		t.Errorf("state context size %d, want 200000 or 1000000", sz)
	}
	if meter.Context.Used <= 0 {
		t.Errorf("state context used %d", meter.Context.Used)
	}
	if strings.Contains(pane.Capture(), "(1M context)") && meter.Context.Size != 1000000 {
		// Transcripts never name "[1m]"; SessionStart declares the window.
		t.Errorf("the CLI shows a 1M context window, the state says %d", meter.Context.Size)
	}
	done()

	done = step("approved Bash: → working → waiting(permission, Bash) → 1 → working → done")
	marker := filepath.Join(h.Project, "marker.txt")
	pane.Type("RUN: echo marker > marker.txt")
	st := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	if w := st[1]; w.Attention != event.AttnPermission || w.Tool != "Bash" || !strings.Contains(w.Text, "echo marker") {
		t.Errorf("waiting state: attention %q tool %q text %q, want permission, Bash, the command", w.Attention, w.Tool, w.Text)
	}
	pane.WaitText(10*time.Second, ClaudePermission)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("marker.txt exists before the command was approved")
	}
	pane.Keys("1")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(marker); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: marker.txt: %q, %v", b, err)
	}
	done()

	done = step("denied Bash: → working → waiting → Escape → idle")
	denied := filepath.Join(h.Project, "denied.txt")
	pane.Type("RUN: echo denied > denied.txt")
	st = s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	if w := st[1]; w.Attention != event.AttnPermission || w.Tool != "Bash" {
		t.Errorf("waiting state: attention %q tool %q, want permission, Bash", w.Attention, w.Tool)
	}
	pane.WaitText(10*time.Second, ClaudePermission)
	pane.Keys("Escape")
	s.Expect(t, 30*time.Second, event.StatusIdle)
	pane.WaitText(10*time.Second, ClaudeDenied)
	if _, err := os.Stat(denied); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}
	done()

	// The state file (debounced) ends where the stream did.
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, pane.ID)
		return ok && st.Session == s.ID && st.Status == event.StatusIdle
	}, "session "+s.ID+" idle in pane "+pane.ID)

	if bad := pl.Out.Bad(); len(bad) > 0 {
		t.Errorf("ag-fold wrote lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
	t.Logf("statuses: %s", strings.Join(s.History(), " → "))
	t.Logf("claude session %s: whole run %s after install", s.ID, time.Since(begin).Round(time.Millisecond))
	// What the model was asked: each command offered once, nothing unexpected.
	var tools []string
	var want event.Tokens
	var last anthropic.Usage
	for _, r := range api.Requests() {
		if strings.HasPrefix(r.Reply, "tool:") {
			tools = append(tools, r.Reply)
		}
		if r.Status != 200 {
			t.Errorf("fake API answered %d: %s", r.Status, r)
		}
		if r.Tools > 0 { // a main-turn reply, the ones the transcript records
			u := r.Usage
			want = want.Add(event.Tokens{In: u.In, Out: u.Out, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite})
			last = u
		}
	}
	// The meters add up to what the API reported: session totals, and the
	// context the last prompt filled.
	pl.Out.Await(t, fmt.Sprintf("with tokens %+v and context used %d", want, last.Context()), 10*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Tokens != nil && *e.Tokens == want &&
			e.Context != nil && e.Context.Used == last.Context()
	})
	if got := strings.Join(tools, "; "); got != "tool:Bash echo marker > marker.txt; tool:Bash echo denied > denied.txt" {
		t.Errorf("tool calls %q", got)
	}
}
