//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// TestClaudeAndCodex runs Claude Code and Codex at once, in two panes of
// one tmux server, watched by one pipeline (ag-tail --follow | ag-fold):
// one agent waits for approval while the other works, finishes, and waits
// in turn; each answer moves only its own pane's session. Both agents'
// hooks write the same spool, and ag-tail follows both transcript trees.
func TestClaudeAndCodex(t *testing.T) {
	t.Parallel()
	claudeBin := Install(t, Claude)
	codexBin := Install(t, Codex)
	h := New(t)
	h.FakeAnthropic()
	h.ClaudeConfig()
	oa := h.FakeOpenAI(openai.Options{})
	h.CodexConfig(codexBin, oa)
	for _, a := range []string{"claude", "codex"} {
		h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", a)
	}
	// Both installed (Codex's hooks not trusted yet: exit 1).
	if out, code := h.RunExit(30*time.Second, Bin(t, "ag-hook"), "status"); code != 1 || !strings.Contains(out, "claude: installed in") || !strings.Contains(out, "codex: installed, but") {
		t.Errorf("ag-hook status: exit %d\n%s", code, out)
	}
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	tm := h.StartTmux()
	pc := h.StartClaude(tm, "claude", claudeBin)
	px := h.StartCodex(tm, "codex", codexBin)

	// both is the state file's view of the two panes once cond holds.
	type view struct{ c, x event.Event }
	both := func(what string, cond func(v view) bool) view {
		t.Helper()
		var v view
		h.WaitState(30*time.Second, func(states []event.Event) bool {
			c, ok1 := state.ForPane(states, pc.ID)
			x, ok2 := state.ForPane(states, px.ID)
			v = view{c, x}
			return ok1 && ok2 && c.Agent == claude.ID && x.Agent == codex.ID && cond(v)
		}, what)
		return v
	}

	t.Log("-- codex waits for approval")
	codexFile := filepath.Join(h.Project, "codex.txt")
	px.Type("RUN: echo codex > codex.txt")
	px.WaitText(30*time.Second, CodexPermission)

	t.Log("-- meanwhile claude works and finishes; codex still waits")
	pc.Type("say hello SLOW:3s")
	v := both("claude working, codex waiting", func(v view) bool {
		return v.c.Status == event.StatusWorking && v.x.Status == event.StatusWaiting
	})
	xs := v.x.Session
	v = both("claude done, codex waiting", func(v view) bool {
		return v.c.Status == event.StatusDone && v.x.Status == event.StatusWaiting
	})
	cs := v.c.Session
	if v.x.Session != xs || v.x.Token == "" || v.x.Text != "echo codex > codex.txt" || v.c.Prompt != "say hello SLOW:3s" {
		t.Errorf("claude done: claude prompt %q; codex session %q (was %q) text %q", v.c.Prompt, v.x.Session, xs, v.x.Text)
	}
	codexWait := v.x

	t.Log("-- claude waits too: two waits, each its own")
	claudeFile := filepath.Join(h.Project, "claude.txt")
	pc.Type("RUN: echo claude > claude.txt")
	pc.WaitText(30*time.Second, ClaudePermission)
	v = both("both waiting", func(v view) bool {
		return v.c.Status == event.StatusWaiting && v.x.Status == event.StatusWaiting
	})
	if v.c.Text != "echo claude > claude.txt" || v.x.Text != "echo codex > codex.txt" || v.x.Token != codexWait.Token ||
		v.c.Session != cs || v.x.Session != xs || v.c.PID == v.x.PID || v.c.TTY == v.x.TTY {
		t.Errorf("both waiting:\nclaude %s\ncodex  %s", event.Marshal(&v.c), event.Marshal(&v.x))
	}

	t.Log("-- approve codex in its pane: codex → working → done, claude still waiting")
	px.Keys("Enter")
	v = both("codex done, claude waiting", func(v view) bool {
		return v.x.Status == event.StatusDone && v.c.Status == event.StatusWaiting
	})
	if b, err := os.ReadFile(codexFile); err != nil || string(b) != "codex\n" {
		t.Errorf("codex's approved command did not run: %q, %v", b, err)
	}
	if _, err := os.Stat(claudeFile); err == nil {
		t.Error("claude.txt exists: approving codex ran claude's command")
	}

	t.Log("-- deny claude: claude → idle, codex still done")
	pc.Keys("Escape")
	both("claude idle, codex done", func(v view) bool {
		return v.c.Status == event.StatusIdle && v.x.Status == event.StatusDone
	})
	pc.WaitText(10*time.Second, ClaudeDenied)
	if _, err := os.Stat(claudeFile); err == nil {
		t.Error("claude.txt exists: the denied command ran")
	}

	// The whole stream: one session per agent, each only ever in its own
	// pane, each through exactly its own sequence.
	paths := map[string][]string{}
	for _, e := range pl.Out.Events() {
		if e.Kind != event.State {
			continue
		}
		key := e.Agent + "/" + e.Session
		want := map[string]string{claude.ID: pc.ID, codex.ID: px.ID}[e.Agent]
		if e.Pane != "" && e.Pane != want {
			t.Errorf("state of %s in pane %s; its pane is %s: %s", key, e.Pane, want, event.Marshal(&e))
		}
		if p := paths[key]; len(p) == 0 || p[len(p)-1] != e.Status {
			paths[key] = append(p, e.Status)
		}
	}
	want := map[string][]string{
		claude.ID + "/" + cs: {"idle", "working", "done", "working", "waiting", "idle"},
		codex.ID + "/" + xs:  {"working", "waiting", "working", "done"},
	}
	for k, w := range want {
		if !slices.Equal(paths[k], w) {
			t.Errorf("%s went %s; want %s", k, strings.Join(paths[k], " → "), strings.Join(w, " → "))
		}
	}
	if len(paths) != 2 {
		t.Errorf("%d sessions in the stream; want 2: %v", len(paths), paths)
	}
	t.Logf("claude %s: %s; codex %s: %s", cs, strings.Join(paths[claude.ID+"/"+cs], " → "),
		xs, strings.Join(paths[codex.ID+"/"+xs], " → "))
}
