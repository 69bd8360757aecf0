//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/t/fakeapi/anthropic"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// loginWorld is one agent in a tmux pane with ag's hooks installed and the
// core of the login pipeline, `ag-tail --follow | ag-fold`, watching: what
// the hooks and the agent's files alone tell (no screens read; the login
// pipeline itself: StartLogin, LoginStages).
type loginWorld struct {
	h   *Harness
	bin string
	tm  *Tmux
	pl  *Pipeline
	p   *Pane    // the agent's pane, at its idle composer
	s   *Session // the agent's first session
	// notify puts ag-notify on a private bus after ag-fold, and ag-keys
	// after it (r).
	notify bool
	r      notifyRig
}

// newClaudeWorld starts Claude Code (against the fake Anthropic server,
// returned) in a pane named name.
func newClaudeWorld(t *testing.T, name string) (*loginWorld, *anthropic.Server) {
	t.Helper()
	bin := Install(t, Claude)
	CheckVersion(t, bin, Claude.Version)
	h := New(t)
	api := h.FakeAnthropic()
	h.ClaudeConfig()
	w := &loginWorld{h: h, bin: bin}
	w.start(claude.ID, func() *Pane { return h.StartClaude(w.tm, name, bin) })
	return w, api
}

// newCodexWorld starts Codex (against the fake OpenAI server, returned) in
// a pane named name.
func newCodexWorld(t *testing.T, name string, opts openai.Options) (*loginWorld, *openai.Server) {
	t.Helper()
	bin := Install(t, Codex)
	CheckVersion(t, bin, Codex.Version)
	h := New(t)
	api := h.FakeOpenAI(opts)
	h.CodexConfig(bin, api)
	w := &loginWorld{h: h, bin: bin}
	w.start(codex.ID, func() *Pane { return h.StartCodex(w.tm, name, bin) })
	return w, api
}

func (w *loginWorld) start(agent string, pane func() *Pane) {
	w.h.T.Helper()
	w.h.Run(30*time.Second, Bin(w.h.T, "ag-hook"), "install", "--agent", agent)
	if w.notify {
		w.h.StartDBus()
		sock := filepath.Join(w.h.Root, "tmux.sock")
		w.r = notifyRig{h: w.h, nd: w.h.StartNotifyd()}
		w.pl = w.h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"}, []string{"ag-notify", "--backend", "dbus", "--cooldown", "0s", "-S", sock})
		w.r.pl, w.r.keys = w.pl, w.h.StartKeys(w.pl.Out, "-S", sock)
	} else {
		w.pl = w.h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	}
	w.tm = w.h.StartTmux()
	w.p = pane()
	w.s = w.pl.Out.Session(agent, "")
}

// approvedLong has the agent in p run a command that needs approval (of
// tool, the agent's shell tool) and takes 8 s, presses key once ready()
// returns (the prompt on screen, and
// whatever else must have been seen first), and checks the session works
// on the command long before it ends — no hook says so until then — and
// is done once it ran. It returns how long after the key working came.
func approvedLong(t *testing.T, p *Pane, s *Session, project, tool, key string, ready func()) time.Duration {
	t.Helper()
	const took = 8 * time.Second
	slow := filepath.Join(project, "slow.txt")
	p.Prompt("RUN: sleep 8 && echo done > slow.txt")
	st := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	if w := st[1]; w.Attention != event.AttnPermission || w.Tool != tool {
		t.Errorf("waiting state: attention %q tool %q, want permission, %s", w.Attention, w.Tool, tool)
	}
	ready()
	approved := time.Now()
	p.Keys(key)
	wk := s.Expect(t, took/2, event.StatusWorking)[0]
	after := time.Since(approved)
	if _, err := os.Stat(slow); err == nil {
		t.Errorf("slow.txt exists %s after the approval: the state waited for the command's end", after)
	}
	if wk.Tool != tool || !strings.Contains(wk.Text, "sleep 8") {
		t.Errorf("working state: tool %q text %q, want %s and the command", wk.Tool, wk.Text, tool)
	}
	s.Expect(t, 30*time.Second, event.StatusDone)
	if b, err := os.ReadFile(slow); err != nil || string(b) != "done\n" {
		t.Errorf("the approved command did not run: slow.txt: %q, %v", b, err)
	}
	t.Logf("approved: working %s after the key (the command takes %s); statuses %s",
		after.Round(time.Millisecond), took, strings.Join(s.History(), " → "))
	return after
}
