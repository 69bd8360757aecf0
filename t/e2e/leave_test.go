//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/providers/copilot"
	"github.com/agwatch/ag/providers/gemini"
	"github.com/agwatch/ag/providers/omp"
	"github.com/agwatch/ag/providers/opencode"
	"github.com/agwatch/ag/providers/pi"
	"github.com/agwatch/ag/t/fakeapi/chat"
	fakegemini "github.com/agwatch/ag/t/fakeapi/gemini"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// leaver is one agent CLI set up for TestLeaveMidTurn: its harness with
// the fake API and config in place, how a pane of it starts and takes a
// prompt, and the keys that interrupt it at work.
type leaver struct {
	agent     string
	interrupt []string // tmux key names; "" is a pause of 300 ms
	// setup makes the harness; opts are the fake Chat Completions API's
	// (Claude and Codex are on other fakes and ignore them).
	setup  func(t *testing.T, opts chat.Options) (h *Harness, start func(tm *Tmux, name string, args ...string) *Pane)
	prompt func(p *Pane, text string) // nil: Pane.Type
	quit   []string                   // how a user quits at the prompt (see keys)
	resume []string                   // the arguments that start it on its last session
	// panes adds `ag-detect --watch --all --panes` to the pipeline: Claude
	// writes nothing when Escape comes before its first output (the fake
	// model's SLOW holds the reply before any), only its pane says so.
	panes bool
}

var leavers = []leaver{
	{agent: claude.ID, interrupt: []string{"Escape"}, quit: []string{"C-c", "", "C-c"}, resume: []string{"--continue"}, panes: true, setup: func(t *testing.T, opts chat.Options) (*Harness, func(*Tmux, string, ...string) *Pane) {
		bin := Install(t, Claude)
		h := New(t)
		h.FakeAnthropic()
		h.ClaudeConfig()
		return h, func(tm *Tmux, name string, args ...string) *Pane { return h.StartClaude(tm, name, bin, args...) }
	}},
	{agent: codex.ID, interrupt: []string{"Escape"}, quit: []string{"C-c", "", "C-c"}, resume: []string{"resume", "--last"}, setup: func(t *testing.T, opts chat.Options) (*Harness, func(*Tmux, string, ...string) *Pane) {
		bin := Install(t, Codex)
		h := New(t)
		h.CodexConfig(bin, h.FakeOpenAI(openai.Options{}))
		return h, func(tm *Tmux, name string, args ...string) *Pane { return h.StartCodex(tm, name, bin, args...) }
	}},
	// OpenCode's first Escape at work asks for a second ("esc again to
	// interrupt").
	{agent: opencode.ID, interrupt: []string{"Escape", "", "Escape"}, quit: []string{"/exit"}, resume: []string{"--continue"}, setup: func(t *testing.T, opts chat.Options) (*Harness, func(*Tmux, string, ...string) *Pane) {
		bin := Install(t, OpenCode)
		h := New(t)
		h.OpenCodeConfig(h.FakeChat(opts))
		return h, func(tm *Tmux, name string, args ...string) *Pane { return h.StartOpenCode(tm, name, bin, 0, args...) }
	}},
	{agent: pi.ID, interrupt: []string{"Escape"}, quit: []string{"/quit"}, resume: []string{"--continue"}, setup: func(t *testing.T, opts chat.Options) (*Harness, func(*Tmux, string, ...string) *Pane) {
		bin := Install(t, Pi)
		h := New(t)
		h.PiConfig(h.FakeChat(opts))
		return h, func(tm *Tmux, name string, args ...string) *Pane { return h.StartPi(tm, name, bin, args...) }
	}},
	{agent: omp.ID, interrupt: []string{"Escape"}, quit: []string{"/exit"}, resume: []string{"--continue"}, setup: func(t *testing.T, opts chat.Options) (*Harness, func(*Tmux, string, ...string) *Pane) {
		bin := Install(t, Omp)
		h := New(t)
		h.OmpConfig(h.FakeChat(opts), bin)
		return h, func(tm *Tmux, name string, args ...string) *Pane { return h.StartOmp(tm, name, bin, args...) }
	}, prompt: func(p *Pane, text string) {
		// Its status line shows before its editor takes keys: once, the
		// Enter of a prompt typed at once was lost (the text stayed in
		// the editor).
		time.Sleep(time.Second)
		p.Type(text)
	}},
	// Copilot's first Escape at work does nothing (TestCopilot), and the
	// second may put the prompt back in the composer: cleared to quit.
	{agent: copilot.ID, interrupt: []string{"Escape", "", "Escape"}, quit: []string{"C-u", "", "/exit"}, resume: []string{"--continue"}, setup: func(t *testing.T, opts chat.Options) (*Harness, func(*Tmux, string, ...string) *Pane) {
		bin := Install(t, Copilot)
		h := New(t)
		h.CopilotConfig(t, h.FakeChat(opts), true)
		return h, func(tm *Tmux, name string, args ...string) *Pane { return h.StartCopilot(tm, name, bin, args...) }
	}, prompt: func(p *Pane, text string) {
		p.WaitText(30*time.Second, CopilotIdle)
		time.Sleep(time.Second) // keys sent sooner are lost
		p.Type(text)
	}},
}

// keys presses tmux keys in p: "" is a pause of 300 ms, and a slash
// command is typed and entered.
func keys(p *Pane, ks []string) {
	for _, k := range ks {
		switch {
		case k == "":
			time.Sleep(300 * time.Millisecond)
		case strings.HasPrefix(k, "/"):
			p.Type(k)
		default:
			p.Keys(k)
		}
	}
}

// leaveWorld is one of leavers with ag's hooks installed, a tmux server,
// and the login pipeline watching (with ag-detect where panes says).
type leaveWorld struct {
	a     leaver
	h     *Harness
	tm    *Tmux
	pl    *Pipeline
	start func(tm *Tmux, name string, args ...string) *Pane
}

func (a leaver) world(t *testing.T) *leaveWorld { return a.worldWith(t, chat.Options{}) }

// worldWith is world with the fake Chat Completions API's options.
func (a leaver) worldWith(t *testing.T, opts chat.Options) *leaveWorld {
	t.Helper()
	h, start := a.setup(t, opts)
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", a.agent)
	w := &leaveWorld{a: a, h: h, tm: h.StartTmux(), start: start}
	stages := [][]string{{"ag-tail", "--follow"}}
	if a.panes {
		stages = LoginStages(w.tm)
	}
	w.pl = h.StartPipeline(append(stages, []string{"ag-fold"})...)
	return w
}

// pane starts the agent (with args) in a new pane named name.
func (w *leaveWorld) pane(name string, args ...string) *Pane { return w.start(w.tm, name, args...) }

// prompt types text at the agent's composer in p and submits it.
func (w *leaveWorld) prompt(p *Pane, text string) {
	if w.a.prompt != nil {
		w.a.prompt(p, text)
		return
	}
	p.Type(text)
}

// agentPane is one agent at its composer in a pane of its own, with ag's
// hooks and the login pipeline: a leaver's world, or Gemini's.
type agentPane struct {
	h      *Harness
	tm     *Tmux
	pl     *Pipeline
	p      *Pane
	prompt func(string) // types a prompt and submits it
}

// paneOf starts agent (one of leavers, or Gemini) in a pane named name.
func paneOf(t *testing.T, agent, name string) agentPane {
	t.Helper()
	if agent == gemini.ID {
		w, _ := newGeminiWorld(t, name, false, fakegemini.Options{})
		return agentPane{w.h, w.tm, w.pl, w.p, w.p.GeminiType}
	}
	w := leaverOf(agent).world(t)
	p := w.pane(name)
	return agentPane{w.h, w.tm, w.pl, p, func(text string) { w.prompt(p, text) }}
}

// leaverOf is the entry of leavers for agent.
func leaverOf(agent string) leaver {
	for _, l := range leavers {
		if l.agent == agent {
			return l
		}
	}
	panic("no leaver for " + agent)
}

// TestLeaveMidTurn: the ways a user leaves an agent, for each agent CLI
// that runs here (Gemini's are in TestGeminiLifecycle), through the login
// pipeline alone (`ag-tail --follow | ag-fold`; Claude's with ag-detect):
//
//   - the agent's own interrupt key while the model's reply is still
//     coming: the session stops working at once, not when the reply would
//     have ended, and stays stopped;
//   - quitting at the prompt the way its users do (Ctrl+C twice, /exit,
//     /quit): gone;
//   - the pane closed (tmux kill-pane) while the session works: gone.
func TestLeaveMidTurn(t *testing.T) {
	for _, a := range leavers {
		t.Run(a.agent, func(t *testing.T) {
			t.Parallel()
			w := a.world(t)
			h, tm, pl, prompt := w.h, w.tm, w.pl, w.prompt

			t.Log("-- interrupted at work: working → not working within seconds, long before the reply's end")
			p := w.pane("interrupted")
			s := pl.Out.Session(a.agent, "")
			prompt(p, "think a while SLOW:40s")
			s.WaitFor(t, "working", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWorking })
			time.Sleep(2 * time.Second) // the reply under way
			t0 := time.Now()
			keys(p, a.interrupt)
			e := s.WaitFor(t, "no longer working after the interrupt", 20*time.Second, func(e *event.Event) bool { return e.Status != event.StatusWorking })
			t.Logf("%s after %s (reason %q)", e.Status, time.Since(t0).Round(time.Millisecond), e.Reason)
			if e.Status == event.StatusWaiting || e.Status == event.StatusGone {
				t.Errorf("after the interrupt: %s, want the session stopped at its prompt", e.Status)
			}
			settled(t, h, p, s.ID, e.Status)

			t.Logf("-- quit at the prompt (%s): gone", strings.Join(a.quit, " "))
			time.Sleep(time.Second)
			t0 = time.Now()
			keys(p, a.quit)
			g := s.WaitFor(t, "gone after quitting", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusGone })
			t.Logf("quit: gone after %s (reason %q)", time.Since(t0).Round(time.Millisecond), g.Reason)

			t.Log("-- the pane closed at work: gone")
			q := w.pane("closed")
			prompt(q, "think a while SLOW:40s")
			// Working, with the process its hook or plugin reported (a
			// transcript line can come first, and says none).
			wq := pl.Out.Await(t, "working in the pane to close", 60*time.Second, func(e *event.Event) bool {
				return e.Kind == event.State && e.Agent == a.agent && e.Session != s.ID && e.Status == event.StatusWorking && e.PID != 0
			})
			sq := pl.Out.Session(a.agent, wq.Session)
			sq.Last = wq
			t0 = time.Now()
			tm.Run("kill-pane", "-t", q.ID)
			g = sq.WaitFor(t, "gone after its pane closed", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusGone })
			t.Logf("closed pane: %s after %s (reason %q)", strings.Join(sq.History(), " → "), time.Since(t0).Round(time.Millisecond), g.Reason)
		})
	}
}

// TestContinueLastSession: a session done and quit, then the agent started
// again in another pane on its last session (`--continue`, Codex's `resume
// --last`) and prompted: the same session comes back from gone, works and
// is done, in the new pane, and is never shown in the pane it left.
func TestContinueLastSession(t *testing.T) {
	for _, a := range leavers {
		t.Run(a.agent, func(t *testing.T) {
			t.Parallel()
			w := a.world(t)
			pl, prompt := w.pl, w.prompt
			p := w.pane("first")
			s := pl.Out.Session(a.agent, "")
			prompt(p, "first run SLOW:1s")
			s.WaitFor(t, "done", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			p.WaitText(30*time.Second, "FAKE-REPLY: first run")
			time.Sleep(time.Second)
			keys(p, a.quit)
			s.WaitFor(t, "gone after quitting", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusGone })

			t.Logf("-- %s in another pane, then a prompt: the same session, in that pane", strings.Join(a.resume, " "))
			q := w.pane("again", a.resume...)
			time.Sleep(time.Second)
			prompt(q, "second run SLOW:1s")
			wk := s.WaitFor(t, "working again", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWorking })
			d := s.WaitFor(t, "done again", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			// Working may come first from the transcript, which names no
			// pane (Codex's rollout, before the new process's hooks): never
			// the pane the session left.
			if wk.Pane != "" && wk.Pane != q.ID || d.Pane != q.ID {
				t.Errorf("the continued session works in pane %q and is done in %q; want %s", wk.Pane, d.Pane, q.ID)
			}
			t.Logf("session %s: %s", s.ID, strings.Join(s.History(), " → "))
		})
	}
}
