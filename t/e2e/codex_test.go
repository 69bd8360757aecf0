//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// codexInput is the input_tokens the fake reports for every response, so
// the context meter is a known figure.
const codexInput = 40000

// TestCodex runs the real Codex CLI in tmux with ag's hooks installed by
// ag-hook and the login pipeline (ag-tail --follow | ag-fold) watching,
// and checks the states ag reports for a plain turn, an approved command
// and a denied one, and the meters against what Codex itself shows.
func TestCodex(t *testing.T) {
	t.Parallel()
	bin := Install(t, Codex)
	CheckVersion(t, bin, Codex.Version)
	begin := time.Now()
	h := New(t)
	api := h.FakeOpenAI(openai.Options{InputTokens: codexInput})
	home := h.CodexConfig(bin, api)
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "codex")
	// Exit 1: installed but not trusted in /hooks, so Codex would run none
	// of them (--dangerously-bypass-hook-trust runs them anyway here).
	st, code := h.RunExit(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "codex")
	if code != 1 || !strings.HasPrefix(st, "codex: installed, but Codex runs none of ag's 11 hooks until you trust them: start codex, type /hooks") {
		t.Errorf("ag-hook status --agent codex: exit %d, %q (in %s)", code, st, home)
	}
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	tm := h.StartTmux()
	t0 := time.Now()
	pane := h.StartCodex(tm, "codex", bin)
	t.Logf("codex idle composer after %s", time.Since(t0).Round(time.Millisecond))
	s := pl.Out.Session(codex.ID, "")

	t.Log("-- plain prompt: idle/— → working → done")
	pane.Type("say hello SLOW:2s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	// The rollout's task_started (ag-tail) is often folded ~50 ms before
	// the UserPromptSubmit hook that says where the session runs.
	w := s.WaitFor(t, "working, with the hook's pane and prompt", 10*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusWorking && e.Pane != "" && e.Prompt != ""
	})
	pane.WaitText(2*time.Second, CodexWorking)
	s.Expect(t, 30*time.Second, event.StatusDone)
	pane.WaitText(10*time.Second, "FAKE-REPLY: say hello SLOW:2s")
	// Where the session runs, as the hooks found it: the pane's node
	// launcher is pane_pid, the native codex under it is the agent.
	if w.Prompt != "say hello SLOW:2s" || w.Pane != pane.ID || w.TTY != pane.TTY || w.Cwd != h.Project {
		t.Errorf("working state: prompt %q pane %q tty %q cwd %q\nwant: %q, %s, %s, %s",
			w.Prompt, w.Pane, w.TTY, w.Cwd, "say hello SLOW:2s", pane.ID, pane.TTY, h.Project)
	}
	if pp := ppid(w.PID); w.PID == 0 || pp != pane.PID {
		t.Errorf("working state: pid %d (parent %d); want the native codex, a child of the pane's node launcher %d", w.PID, pp, pane.PID)
	}
	if !strings.HasPrefix(w.Transcript, filepath.Join(home, "sessions")+"/") {
		t.Errorf("working state: transcript %q, want a rollout under %s/sessions", w.Transcript, home)
	}

	t.Log("-- meters: model and context window, left % as Codex shows it")
	meter := pl.Out.Await(t, "with model and context", 15*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Model != "" && e.Context != nil &&
			e.Context.Size > 0 && e.Context.LeftPct != nil
	})
	if meter.Model != "fake-model" {
		t.Errorf("state model %q, want fake-model (config.toml's)", meter.Model)
	}
	c := meter.Context
	if c.Used < codexInput || c.Used > codexInput+100 {
		t.Errorf("state context used %d; want the last response's total: %d input + a few output", c.Used, codexInput)
	}
	left, screen, ok := pane.CodexStatusLeft(10 * time.Second)
	switch {
	case !ok:
		t.Errorf("/status shows no \"Context window: N%% left\":\n%s", screen)
	case left != *c.LeftPct:
		t.Errorf("state context left_pct %d (used %d of %d); Codex's /status says %d%% left", *c.LeftPct, c.Used, c.Size, left)
	}
	if want := strconv.FormatInt(c.Size/1000, 10) + "K"; !strings.Contains(screen, want) {
		t.Logf("note: /status does not show the window as %s:\n%s", want, screen)
	}
	t.Logf("meters: model %s, context %d of %d, %d%% left (/status: %d%%)", meter.Model, c.Used, c.Size, *c.LeftPct, left)

	t.Log("-- approved command: → working → waiting(permission, Bash) → Enter → working → done")
	marker := filepath.Join(h.Project, "marker.txt")
	pane.Type("RUN: echo marker > marker.txt")
	sts := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	if w := sts[1]; w.Attention != event.AttnPermission || w.Tool != "Bash" || w.Text != "echo marker > marker.txt" || w.Pane != pane.ID {
		t.Errorf("waiting state: attention %q tool %q text %q pane %q; want permission, Bash, the command, %s",
			w.Attention, w.Tool, w.Text, w.Pane, pane.ID)
	}
	pane.WaitText(10*time.Second, CodexPermission)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("marker.txt exists before the command was approved")
	}
	detectCodex(t, h, tm, pane, w.PID, "echo marker > marker.txt")
	pane.Keys("Enter")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(marker); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: marker.txt: %q, %v", b, err)
	}
	pane.WaitText(10*time.Second, "FAKE-DONE: tool result received")

	t.Log("-- denied command: → working → waiting → Escape → idle")
	denied := filepath.Join(h.Project, "denied.txt")
	pane.Type("RUN: echo denied > denied.txt")
	sts = s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	if w := sts[1]; w.Attention != event.AttnPermission || w.Tool != "Bash" || w.Text != "echo denied > denied.txt" {
		t.Errorf("waiting state: attention %q tool %q text %q, want permission, Bash, the command", w.Attention, w.Tool, w.Text)
	}
	pane.WaitText(10*time.Second, CodexPermission)
	pane.Keys("Escape")
	s.Expect(t, 30*time.Second, event.StatusIdle)
	pane.WaitText(10*time.Second, CodexDenied)
	if _, err := os.Stat(denied); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}

	h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, pane.ID)
		return ok && st.Agent == codex.ID && st.Session == s.ID && st.Status == event.StatusIdle
	}, "codex session "+s.ID+" idle in pane "+pane.ID)
	if bad := pl.Out.Bad(); len(bad) > 0 {
		t.Errorf("ag-fold wrote lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
	var calls []string
	for _, r := range api.Requests() {
		if strings.HasPrefix(r.Reply, "call:") {
			calls = append(calls, r.Reply)
		}
		if r.Status != 200 {
			t.Errorf("fake API answered %d: %s", r.Status, r)
		}
	}
	if got := strings.Join(calls, "; "); got != "call:exec_command echo marker > marker.txt escalated; call:exec_command echo denied > denied.txt escalated" {
		t.Errorf("tool calls %q", got)
	}
	t.Logf("statuses: %s", strings.Join(s.History(), " → "))
	t.Logf("codex session %s: whole run %s", s.ID, time.Since(begin).Round(time.Millisecond))
}

// detectCodex runs ag-detect once over the tmux server while Codex shows
// its approval prompt: the pane's agent is the native codex under the node
// launcher (the pid its hooks reported), and the screen reads as a
// permission wait for cmd.
func detectCodex(t *testing.T, h *Harness, tm *Tmux, pane *Pane, pid int, cmd string) {
	t.Helper()
	out := h.Run(30*time.Second, Bin(t, "ag-detect"), "-S", tm.Socket, "--all", "--panes")
	var up, wait *event.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e event.Event
		if err := event.Decode([]byte(line), &e); err != nil {
			t.Errorf("ag-detect wrote %q: %v", line, err)
			continue
		}
		switch {
		case e.Kind == event.ProcUp && e.Pane == pane.ID:
			up = &e
		case e.Kind == event.Wait && e.Pane == pane.ID:
			wait = &e
		}
	}
	switch {
	case up == nil:
		t.Errorf("ag-detect --all: no proc.up for pane %s:\n%s", pane.ID, out)
	case up.Agent != codex.ID || up.PID != pid || up.TTY != pane.TTY || up.Cwd != h.Project ||
		!strings.HasSuffix(up.Argv0, "/bin/codex") || !strings.Contains(up.Argv0, "@openai/codex-"):
		t.Errorf("ag-detect proc.up: %s\nwant agent codex, pid %d (the native child of node %d), tty %s, cwd %s, argv0 the native binary",
			event.Marshal(up), pid, pane.PID, pane.TTY, h.Project)
	}
	switch {
	case wait == nil:
		t.Errorf("ag-detect --panes: no wait for pane %s:\n%s\nscreen:\n%s", pane.ID, out, pane.Capture())
	case wait.Agent != codex.ID || wait.Src != event.SrcPane || wait.Attention != event.AttnPermission || wait.Tool != "Bash" || wait.Text != cmd:
		t.Errorf("ag-detect pane wait: %s\nwant codex, src pane, permission, Bash, %q", event.Marshal(wait), cmd)
	}
}

// ppid is pid's parent, 0 if unknown (linux /proc; the e2e runs on linux).
func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}
