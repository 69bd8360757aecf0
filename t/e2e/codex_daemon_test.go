//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/providers/codex/codexhook"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// TestCodexDaemon runs Codex the way 0.17x does by default: every TUI of a
// CODEX_HOME hands its session to one shared background `codex app-server`
// (no terminal), and hooks run inside that server, so their $TMUX_PANE is
// the first TUI's pane whatever pane the session is in, and their pid the
// server's. ag-hook must not report either; the session is tied to its pane
// instead by ag-detect's proc.up (the native codex under the pane's node
// launcher, with its cwd) and ag-fold's rule that a session with no pane
// and no process adopts the one pane-only sighting of its agent in its
// directory. Two sessions in two panes (two directories) each end up in
// their own pane; the hooks still run (trusted through hooks/list) and
// still fold.
func TestCodexDaemon(t *testing.T) {
	t.Parallel()
	bin := Install(t, Codex)
	h := New(t)
	api := h.FakeOpenAI(openai.Options{})
	other := filepath.Join(h.Root, "other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	h.CodexConfig(bin, api, other)
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "codex")
	if n := h.TrustCodexHooks(bin); n != len(codexhook.Hooks) {
		t.Errorf("hooks/list listed %d ag-hook handlers; want %d", n, len(codexhook.Hooks))
	}
	if st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "codex"); strings.Contains(st, "untrusted") {
		t.Errorf("ag-hook status after trusting every handler: %q", st)
	}
	tm := h.StartTmux()
	// The login pipeline with detection.
	pl := h.StartPipeline(append(LoginStages(tm), []string{"ag-fold"})...)

	// The first TUI installs and starts the server (seconds); a prompt
	// typed before the model line shows up is lost.
	p1 := tm.NewPane("first", h.Project, nil, bin)
	p1.WaitText(90*time.Second, CodexIdle, CodexReady)
	p2 := tm.NewPane("second", other, nil, bin)
	p2.WaitText(90*time.Second, CodexIdle, CodexReady)

	// turn runs a plain prompt in p and returns its session, which must
	// reach done in p.
	turn := func(p *Pane, prompt string) *Session {
		t.Helper()
		p.Type(prompt)
		st := pl.Out.Await(t, "codex working in pane "+p.ID, 30*time.Second, func(e *event.Event) bool {
			return e.Kind == event.State && e.Agent == codex.ID && e.Session != "" && e.Pane == p.ID &&
				e.Status == event.StatusWorking
		})
		s := pl.Out.Session(codex.ID, st.Session)
		pl.Out.Await(t, "codex done in pane "+p.ID, 30*time.Second, func(e *event.Event) bool {
			return e.Kind == event.State && e.Session == st.Session && e.Pane == p.ID && e.Status == event.StatusDone
		})
		p.WaitText(10*time.Second, "FAKE-REPLY: "+prompt)
		return s
	}
	s1 := turn(p1, "hello first")
	s2 := turn(p2, "hello second")
	if s1.ID == s2.ID {
		t.Fatalf("one session %s for two panes", s1.ID)
	}

	t.Log("-- an approval in the second pane: its own session waits, in its own pane")
	marker := filepath.Join(other, "marker.txt")
	p2.Type("RUN: echo marker > marker.txt")
	p2.WaitText(30*time.Second, CodexPermission)
	wt := pl.Out.Await(t, "the second session waiting", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s2.ID && e.Status == event.StatusWaiting
	})
	if wt.Pane != p2.ID || wt.Attention != event.AttnPermission || wt.Text != "echo marker > marker.txt" {
		t.Errorf("waiting state: pane %q attention %q text %q; want %s, permission, the command", wt.Pane, wt.Attention, wt.Text, p2.ID)
	}
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		a, ok1 := state.ForPane(states, p1.ID)
		b, ok2 := state.ForPane(states, p2.ID)
		return ok1 && ok2 && a.Session == s1.ID && a.Status == event.StatusDone && b.Session == s2.ID && b.Status == event.StatusWaiting
	}, "first pane done, second waiting")
	p2.Keys("Enter")
	pl.Out.Await(t, "the second session done after the approval", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s2.ID && e.Status == event.StatusDone && e.T.After(wt.T.Time)
	})
	if b, err := os.ReadFile(marker); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: %q, %v", b, err)
	}

	// The hooks ran in the shared server (no terminal): they fired for both
	// sessions, and none claimed a pane or a pid.
	spool, _ := os.ReadFile(filepath.Join(h.AGDir, "spool.ndjson"))
	hooks := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(spool)), "\n") {
		var e event.Event
		if event.Decode([]byte(line), &e) != nil || e.Agent != codex.ID || e.Src != event.SrcHook {
			continue
		}
		hooks[e.Session]++
		if e.Pane != "" || e.PID != 0 || e.TTY != "" {
			t.Errorf("a hook from the shared server claims pane %q pid %d tty %q: %s", e.Pane, e.PID, e.TTY, line)
		}
	}
	if hooks[s1.ID] == 0 || hooks[s2.ID] == 0 {
		t.Errorf("hook events per session: %v; want both sessions' hooks (trusted, run by the server)", hooks)
	}
	// Every state of each session is in its own pane or in none yet.
	for _, e := range pl.Out.Events() {
		if e.Kind != event.State || e.Agent != codex.ID {
			continue
		}
		if (e.Session == s1.ID && e.Pane != "" && e.Pane != p1.ID) || (e.Session == s2.ID && e.Pane != "" && e.Pane != p2.ID) {
			t.Errorf("state of %s in the wrong pane: %s", e.Session, event.Marshal(&e))
		}
	}
	t.Logf("sessions %s in %s, %s in %s; hook events %v", s1.ID, p1.ID, s2.ID, p2.ID, hooks)

	t.Log("-- two panes in one directory: the resumed session by its command line, the new one by elimination")
	// The first TUI closes; its session is resumed in a new pane, beside a
	// new codex in the same directory. Nothing the server's hooks say tells
	// the two apart: `codex resume <id>` on the process's command line does.
	tm.Run("kill-session", "-t", p1.Name)
	pl.Out.Await(t, "the first session gone with its pane", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s1.ID && e.Status == event.StatusGone
	})
	p3 := tm.NewPane("resumed", h.Project, nil, bin, "resume", s1.ID)
	p3.WaitText(90*time.Second, CodexIdle, CodexReady)
	p4 := tm.NewPane("fourth", h.Project, nil, bin)
	p4.WaitText(90*time.Second, CodexIdle, CodexReady)
	// Resuming makes the server say SessionEnd for the thread (no pid: it
	// cannot say which process): the session stays in the pane that runs it.
	pl.Out.Await(t, "the resumed session idle in its pane", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s1.ID && e.Pane == p3.ID && e.Status == event.StatusIdle
	})
	if s3 := turn(p3, "hello again"); s3.ID != s1.ID {
		t.Errorf("the resumed pane %s runs session %s; want %s", p3.ID, s3.ID, s1.ID)
	}
	s4 := turn(p4, "hello fourth")
	if s4.ID == s1.ID || s4.ID == s2.ID {
		t.Errorf("the new pane %s runs session %s, an old one", p4.ID, s4.ID)
	}
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		a, ok1 := state.ForPane(states, p3.ID)
		b, ok2 := state.ForPane(states, p4.ID)
		return ok1 && ok2 && a.Session == s1.ID && b.Session == s4.ID
	}, "the resumed session in its pane, the new one in the other")
	ends := 0
	spool, _ = os.ReadFile(filepath.Join(h.AGDir, "spool.ndjson"))
	for _, line := range strings.Split(strings.TrimSpace(string(spool)), "\n") {
		var e event.Event
		if event.Decode([]byte(line), &e) == nil && e.Kind == event.SessionEnd && e.Session == s1.ID {
			ends++
		}
	}
	t.Logf("one directory: %s resumed in %s (the server said SessionEnd for it %d times), %s new in %s",
		s1.ID, p3.ID, ends, s4.ID, p4.ID)
}
