//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/gemini"
	fakegemini "github.com/agwatch/ag/t/fakeapi/gemini"
)

// geminiInput is the promptTokenCount the fake reports for every
// response, so the context meter is a known figure.
const geminiInput = 40000

// TestGemini runs the real Gemini CLI in tmux with ag's hooks installed by
// ag-hook (in Gemini's own home, GEMINI_CLI_HOME) and the login pipeline
// (ag-tail --follow | ag-fold) watching: a plain turn, the meters against
// Gemini's footer, an approved command, a denied one, and detection of the
// one agent behind Gemini's node relaunch.
func TestGemini(t *testing.T) {
	t.Parallel()
	begin := time.Now()
	lw, api := newGeminiWorld(t, "gemini", true, fakegemini.Options{InputTokens: geminiInput})
	h, tm, pl, p, s := lw.h, lw.tm, lw.pl, lw.p, lw.s
	dir := filepath.Join(h.Getenv("GEMINI_CLI_HOME"), ".gemini")
	st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "gemini")
	if !strings.HasPrefix(st, "gemini: installed in ") || !strings.Contains(st, ".gemini/settings.json") {
		t.Errorf("ag-hook status --agent gemini: %q, want it installed in %s", st, filepath.Join(dir, "settings.json"))
	}

	t.Log("-- plain prompt: idle → working → done")
	p.GeminiType("say hello SLOW:2s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	p.WaitText(5*time.Second, GeminiWorking)
	done := s.Expect(t, 30*time.Second, event.StatusDone)[0]
	p.WaitText(10*time.Second, "FAKE-REPLY: say hello SLOW:2s")
	// Where the session runs: the pane runs node …/.bin/gemini, which
	// relaunched itself as its child; the child runs the session and its
	// hooks.
	if done.Prompt != "say hello SLOW:2s" || done.Pane != p.ID || done.TTY != p.TTY || done.Cwd != h.Project {
		t.Errorf("done state: prompt %q pane %q tty %q cwd %q; want %q, %s, %s, %s",
			done.Prompt, done.Pane, done.TTY, done.Cwd, "say hello SLOW:2s", p.ID, p.TTY, h.Project)
	}
	if pp := ppid(done.PID); done.PID == 0 || pp != p.PID {
		t.Errorf("state pid %d (parent %d); want Gemini's relaunched node, a child of the pane's %d", done.PID, pp, p.PID)
	}
	if !strings.HasPrefix(done.Transcript, filepath.Join(dir, "tmp")+"/") || !strings.HasSuffix(done.Transcript, ".jsonl") {
		t.Errorf("transcript %q, want a chat under %s/tmp", done.Transcript, dir)
	}

	t.Log("-- meters: the model the CLI asked for, the context window, left as the footer shows it")
	m := pl.Out.Await(t, "with model and context", 15*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Model != "" && e.Context != nil && e.Context.LeftPct != nil
	})
	asked := ""
	for _, r := range api.Requests() {
		if r.RPC == "streamGenerateContent" {
			asked = r.Model
		}
	}
	if m.Model != asked || m.Context.Used != geminiInput || m.Context.Size != gemini.ContextWindow(asked) {
		t.Errorf("meters: model %q context %d of %d; want %q (the model the CLI asked the API for), %d of %d",
			m.Model, m.Context.Used, m.Context.Size, asked, geminiInput, gemini.ContextWindow(asked))
	}
	if want := 100 - int((geminiInput*100+m.Context.Size/2)/m.Context.Size); *m.Context.LeftPct != want {
		t.Errorf("state left_pct %d; want %d (100 less the share used, rounded)", *m.Context.LeftPct, want)
	}
	// Gemini 0.61.0's footer ("N% used", ui.footer.hideContextPercentage
	// false) stays at 0% against the fake, whatever promptTokenCount says:
	// noted, not compared.
	if u := regexp.MustCompile(`(\d+)% used`).FindStringSubmatch(p.Capture()); u != nil {
		t.Logf("Gemini's footer: %s%% used", u[1])
	}
	if m.Tokens == nil || m.Tokens.CacheRead == 0 || m.Tokens.In+m.Tokens.CacheRead != geminiInput {
		t.Errorf("tokens %+v; want %d input, cached ones apart", m.Tokens, geminiInput)
	}
	t.Logf("meters: model %s, context %d of %d, %d%% left; tokens %+v", m.Model, m.Context.Used, m.Context.Size, *m.Context.LeftPct, *m.Tokens)

	t.Log("-- approved command: → working → waiting(permission, run_shell_command) → 1 → working → done")
	marker := filepath.Join(h.Project, "marker.txt")
	p.GeminiType("RUN: echo marker > marker.txt")
	sts := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	if w := sts[1]; w.Attention != event.AttnPermission || w.Tool != "run_shell_command" || w.Text != "echo marker > marker.txt" || w.Pane != p.ID {
		t.Errorf("waiting state: attention %q tool %q text %q pane %q; want permission, run_shell_command, the command, %s",
			w.Attention, w.Tool, w.Text, w.Pane, p.ID)
	}
	p.WaitText(10*time.Second, GeminiPermission)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("marker.txt exists before the command was approved")
	}
	detectGemini(t, h, tm, p, sts[1].PID, "echo marker > marker.txt")
	p.Keys("1")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(marker); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: marker.txt: %q, %v", b, err)
	}
	p.WaitText(10*time.Second, "FAKE-DONE: tool result received")

	t.Log("-- denied command: → working → waiting → Escape → idle (Gemini fires no AfterAgent)")
	denied := filepath.Join(h.Project, "denied.txt")
	p.GeminiType("RUN: echo denied > denied.txt")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	p.WaitText(10*time.Second, GeminiPermission)
	p.Keys("Escape")
	s.Expect(t, 30*time.Second, event.StatusIdle)
	p.WaitText(10*time.Second, GeminiDenied)
	if _, err := os.Stat(denied); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}
	// Nothing later brings it back: the history Gemini records again
	// after a cancel is no new turn.
	time.Sleep(3 * time.Second)
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, p.ID)
		return ok && st.Agent == gemini.ID && st.Session == s.ID && st.Status == event.StatusIdle
	}, "gemini session "+s.ID+" idle in pane "+p.ID)

	if bad := pl.Out.Bad(); len(bad) > 0 {
		t.Errorf("ag-fold wrote lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
	for _, stage := range pl.Stages {
		if b, _ := os.ReadFile(stage.Stderr); len(b) > 0 {
			t.Errorf("%s wrote to stderr:\n%s", stage.Name, b)
		}
	}
	t.Logf("statuses: %s", strings.Join(s.History(), " → "))
	t.Logf("gemini session %s: whole run %s", s.ID, time.Since(begin).Round(time.Millisecond))
}

// detectGemini runs ag-detect once while Gemini shows its permission box:
// one agent in the pane, the relaunched node the hooks ran in, and a
// permission wait for cmd on screen.
func detectGemini(t *testing.T, h *Harness, tm *Tmux, pane *Pane, pid int, cmd string) {
	t.Helper()
	out := h.Run(30*time.Second, Bin(t, "ag-detect"), "-S", tm.Socket, "--all", "--panes")
	var ups []event.Event
	var wait *event.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e event.Event
		if err := event.Decode([]byte(line), &e); err != nil {
			t.Errorf("ag-detect wrote %q: %v", line, err)
			continue
		}
		switch {
		case e.Kind == event.ProcUp && e.Pane == pane.ID:
			ups = append(ups, e)
		case e.Kind == event.Wait && e.Pane == pane.ID:
			wait = &e
		}
	}
	switch {
	case len(ups) != 1:
		t.Errorf("ag-detect --all: %d proc.up for pane %s, want one:\n%s", len(ups), pane.ID, out)
	case ups[0].Agent != gemini.ID || ups[0].PID != pid || ppid(pid) != pane.PID || ups[0].Cwd != h.Project:
		t.Errorf("ag-detect proc.up: %s\nwant gemini, pid %d (the relaunched child of node %d), cwd %s",
			event.Marshal(&ups[0]), pid, pane.PID, h.Project)
	}
	switch {
	case wait == nil:
		t.Errorf("ag-detect --panes: no wait for pane %s:\n%s\nscreen:\n%s", pane.ID, out, pane.Capture())
	case wait.Agent != gemini.ID || wait.Attention != event.AttnPermission || wait.Tool != "run_shell_command" || wait.Text != cmd:
		t.Errorf("ag-detect pane wait: %s\nwant gemini, permission, run_shell_command, %q", event.Marshal(wait), cmd)
	}
}
