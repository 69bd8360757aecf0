//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// screenOnly is an agent ag knows from a built-in definition alone: no
// hooks, no transcript, its screen read through tmux's control mode by
// ag-detect --watch --all --panes | ag-fold.
type screenOnly struct {
	h     *Harness
	tm    *Tmux
	pane  *Pane
	s     *Session
	agent string
}

// watchScreen starts the pipeline and waits until ag-detect has found
// agent in the pane start makes (given the tmux server).
func (h *Harness) watchScreen(agent string, start func(tm *Tmux) *Pane) *screenOnly {
	h.T.Helper()
	tm := h.StartTmux()
	pl := h.StartPipeline([]string{"ag-detect", "--watch", "--all", "--panes", "-S", tm.Socket}, []string{"ag-fold"})
	pane := start(tm)
	h.WaitFile(pl.Outputs[0], 60*time.Second, `"kind":"proc.up","agent":"`+agent+`"`)
	return &screenOnly{h: h, tm: tm, pane: pane, s: pl.Out.Session(agent, ""), agent: agent}
}

// turn waits for the agent's composer (its idle screen), types a prompt
// that holds the fake's reply 3 s and waits for working, then done, from
// the screen alone, in this pane. Typed before the composer is read as
// idle, on a loaded machine the prompt raced the agent's own start-up and
// the first state seen was not the turn's.
func (w *screenOnly) turn(t *testing.T, reply string) {
	t.Helper()
	w.s.WaitFor(t, "idle before the turn", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusIdle })
	w.pane.Type("say hello SLOW:3s")
	busy := w.s.Expect(t, 60*time.Second, event.StatusWorking)[0]
	w.s.Expect(t, 60*time.Second, event.StatusDone)
	if busy.Pane != w.pane.ID {
		t.Errorf("working state in pane %q, want %s", busy.Pane, w.pane.ID)
	}
	w.pane.WaitText(10*time.Second, reply)
}

// keys runs ag-keys ACTION on the pane for the wait it answers (its
// token: ag-keys waits for the state file to reach it) and fails the test
// if it refuses.
func (w *screenOnly) keys(t *testing.T, wait event.Event, action string, args ...string) {
	t.Helper()
	argv := append([]string{Bin(t, "ag-keys"), action, "--pane", w.pane.ID, "-S", w.tm.Socket, "--token", wait.Token}, args...)
	if out, code := w.h.runCode(30*time.Second, argv...); code != 0 {
		t.Fatalf("ag-keys %s: exit %d %s", action, code, out)
	}
}

// waiting waits for a wait on attention and returns it.
func (w *screenOnly) waiting(t *testing.T, attention string) event.Event {
	t.Helper()
	return w.s.WaitFor(t, "waiting ("+attention+")", 60*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusWaiting && e.Attention == attention
	})
}

// approveDeny runs a command the agent asks about: approved with the
// definition's key (the file is written, the turn ends), then another
// denied (not written, the wait ends); tool and the wait's text are
// checked on the first.
func (w *screenOnly) approveDeny(t *testing.T, tool string) {
	t.Helper()
	w.pane.Type("please RUN: echo marker > marker.txt")
	// The dialog may come up before what it asks about (nanocoder draws
	// the command's preview a moment later): the wait that names it.
	wait := w.s.WaitFor(t, "waiting on the command", 60*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusWaiting && e.Attention == event.AttnPermission && e.Text != ""
	})
	if wait.Tool != tool || wait.Text != "echo marker > marker.txt" {
		t.Errorf("the wait: tool %q text %q, want %q and the command", wait.Tool, wait.Text, tool)
	}
	w.keys(t, wait, "approve")
	w.h.WaitFile(filepath.Join(w.h.Project, "marker.txt"), 30*time.Second, "marker")
	w.s.WaitFor(t, "done after the approval", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })

	w.pane.Type("RUN: echo denied > denied.txt")
	w.keys(t, w.waiting(t, event.AttnPermission), "deny")
	w.s.WaitFor(t, "no longer waiting", 60*time.Second, func(e *event.Event) bool { return e.Status != event.StatusWaiting })
	if _, err := os.Stat(filepath.Join(w.h.Project, "denied.txt")); err == nil {
		t.Error("the denied command ran")
	}
}

// CheckPackage fails unless the installed package.json of pkg says its
// version: for a CLI whose --version does not (grok 0.0.34 prints 1.0.1).
func CheckPackage(t testing.TB, pkg NPMPackage) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(CacheDir(t), pkg.Dir, "node_modules", pkg.Name, "package.json"))
	var meta struct{ Version string }
	if err == nil {
		err = json.Unmarshal(data, &meta)
	}
	if err != nil || meta.Version != pkg.Version {
		t.Fatalf("%s: installed version %q (%v), want %s: delete the cache folder to reinstall", pkg.Name, meta.Version, err, pkg.Version)
	}
}

// WaitRaw waits until the pane's terminal is out of canonical mode: the
// agent reads keys. grok draws its composer a moment before it sets raw
// mode, and what is typed in between is echoed by the terminal and lost.
func (p *Pane) WaitRaw(timeout time.Duration) {
	p.tm.h.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out, err := exec.Command("stty", "-F", p.TTY, "-a").Output()
		if err == nil && strings.Contains(string(out), "-icanon") {
			return
		}
		if time.Now().After(deadline) {
			p.tm.h.T.Fatalf("pane %s: its terminal is still canonical after %s (%v)", p.ID, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
