//go:build e2e

package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/t/fakeapi/anthropic"
)

// Screen texts of Claude Code 2.1.197's harder prompts.
const (
	ClaudeQuestionFooter = "Enter to select"
	ClaudePlanAsk        = "Would you like to proceed?"
	ClaudePlanAuto       = "use auto mode"
	ClaudePlanManual     = "manually approve edits"
	ClaudePlanModeOn     = "plan mode on"
	ClaudeAutoModeOn     = "auto mode on"
	ClaudePlanBare       = "Exit plan mode?"
)

// hardWorld is Claude Code with ag's hooks and the login pipeline with
// pane detection, `ag-tail --follow | ag-detect --watch --all --panes |
// ag-fold`: ag-detect's pane rules are what tell a question or a plan
// from the permission prompt Claude's hooks report for all three.
type hardWorld struct {
	h   *Harness
	api *anthropic.Server
	tm  *Tmux
	pl  *Pipeline
	bin string
}

func newHardWorld(t *testing.T) *hardWorld {
	t.Helper()
	w, _ := newHard(t, false)
	return w
}

// newHard is hardWorld, and with notify ag-notify on a private bus after
// ag-fold and ag-keys taking its output.
func newHard(t *testing.T, notify bool) (*hardWorld, notifyRig) {
	t.Helper()
	bin := Install(t, Claude)
	CheckVersion(t, bin, Claude.Version)
	h := New(t)
	w := &hardWorld{h: h, bin: bin}
	w.api = h.FakeAnthropic()
	h.ClaudeConfig()
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "claude")
	w.tm = h.StartTmux()
	r := notifyRig{h: h}
	if !notify {
		w.pl = h.StartPipeline(append(LoginStages(w.tm), []string{"ag-fold"})...)
		return w, r
	}
	h.StartDBus()
	r.nd = h.StartNotifyd()
	w.pl = h.StartPipeline(append(LoginStages(w.tm), []string{"ag-fold"}, []string{"ag-notify", "--backend", "dbus", "--cooldown", "0s", "-S", w.tm.Socket})...)
	r.pl, r.keys = w.pl, h.StartKeys(w.pl.Out, "-S", w.tm.Socket)
	return w, r
}

// claude starts Claude Code with args in a new pane, waits for its
// composer (footer ready, one of idle) and its session.
func (w *hardWorld) claude(t *testing.T, name string, ready string, args ...string) (*Pane, *Session) {
	t.Helper()
	p := w.tm.NewPane(name, w.h.Project, nil, append([]string{w.bin}, args...)...)
	p.WaitText(90*time.Second, ready)
	st := w.pl.Out.Await(t, "of the session in pane "+p.ID, 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == claude.ID && e.Pane == p.ID && e.Session != ""
	})
	s := w.pl.Out.Session(claude.ID, st.Session)
	return p, s
}

// keys runs ag-keys once (as a person or the tmux plugin would) and
// returns its exit code and its keys event.
func (w *hardWorld) keys(t *testing.T, args ...string) (int, event.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, Bin(t, "ag-keys"), append(args, "-S", w.tm.Socket)...)
	cmd.Env, cmd.Dir = w.h.Environ(), w.h.Project
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("ag-keys %q: %v", args, err)
	}
	var e event.Event
	if derr := event.Decode([]byte(strings.TrimSpace(string(out))), &e); derr != nil || e.Kind != event.Keys {
		t.Fatalf("ag-keys %q (exit %d) wrote %q, not one keys event (%v); stderr %q", args, code, out, derr, stderr.String())
	}
	t.Logf("   ag-keys %s → exit %d, %s %q %s", strings.Join(args, " "), code, e.Status, e.Text, e.Reason)
	return code, e
}

// waitToken waits until the state file holds the token for the pane: what
// ag-keys will check against.
func (w *hardWorld) waitToken(p *Pane, token string) {
	w.h.T.Helper()
	w.h.WaitState(10*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Pane == p.ID && st.Token == token {
				return true
			}
		}
		return false
	}, "token "+token+" for pane "+p.ID)
}

// TestClaudeQuestion: an AskUserQuestion picker is a question, though
// Claude's Notification hook reports it as a permission prompt; an answer
// typed with ag-keys goes into the picker's "Type something." row and
// reaches Claude as the question's answer, one that is an option's label
// picks that option, and a permission-style approve on the question is
// refused. The state carries the question's options, and its
// notification a button for each: pressing one answers with that option.
func TestClaudeQuestion(t *testing.T) {
	t.Parallel()
	w, r := newHard(t, true)
	p, s := w.claude(t, "ask", ClaudeIdle)

	const question = "Which colour should the button be?"
	p.Type("ASK: " + question)
	st := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	screen := p.WaitText(15*time.Second, question, anthropic.AskOptions[0], anthropic.AskOptions[1], ClaudeQuestionFooter)
	wt := st[1]
	if wt.Attention != event.AttnQuestion {
		// The hook's word may come first; the pane relabels it.
		wt = s.WaitFor(t, "waiting on a question", 10*time.Second, func(e *event.Event) bool {
			return e.Status == event.StatusWaiting && e.Attention == event.AttnQuestion
		})
	}
	if wt.Tool != anthropic.ToolAsk || wt.Text != question || !slices.Equal(wt.Options, anthropic.AskOptions[:]) {
		t.Errorf("question state: tool %q text %q options %q; want %s, %q, %q\nscreen:\n%s", wt.Tool, wt.Text, wt.Options, anthropic.ToolAsk, question, anthropic.AskOptions, screen)
	}
	// ag-detect alone says the same from the screen.
	w.paneWait(t, p, event.AttnQuestion, anthropic.ToolAsk, question)
	w.waitToken(p, wt.Token)

	// A permission's approve ("1") would pick an option blind: refused,
	// and so is an answer quoting a token the session no longer has.
	if code, k := w.keys(t, "approve", "--pane", p.ID, "--token", wt.Token); code != 1 || k.Status != "refused" || k.Text != "" {
		t.Errorf("approve on a question: exit %d status %q text %q reason %q; want 1, refused, nothing typed", code, k.Status, k.Text, k.Reason)
	}
	if code, k := w.keys(t, "answer", "Green please", "--pane", p.ID, "--token", "1.1"); code != 1 || k.Status != "refused" || !strings.Contains(k.Reason, "stale") {
		t.Errorf("answer with a stale token: exit %d status %q reason %q; want 1, refused, stale", code, k.Status, k.Reason)
	}
	if !strings.Contains(p.Capture(), ClaudeQuestionFooter) {
		t.Fatal("the refused actions moved the picker")
	}
	// Not an option: into "Type something." (its digit, the text, Enter),
	// the question's own answer; the turn goes on with it.
	code, k := w.keys(t, "answer", "Green please", "--pane", p.ID, "--token", wt.Token)
	if code != 0 || k.Status != "sent" || k.Text != `3, 150ms, "Green please", 150ms, Enter` {
		t.Fatalf("answer: exit %d status %q text %q reason %q", code, k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	// Claude's record of the tool's answer, which is what the model gets
	// (the fake's echo of it is clamped).
	p.WaitText(10*time.Second, question+" → Green please")

	// The notification's second option: the answer is its label, which
	// ag-keys picks by its digit.
	const second = "Which shade should the border be?"
	from := len(r.nd.Calls())
	p.Type("ASK: " + second)
	w2 := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	p.WaitText(15*time.Second, second, anthropic.AskOptions[1], ClaudeQuestionFooter)
	if w2.Attention != event.AttnQuestion {
		w2 = s.WaitFor(t, "waiting on the second question", 10*time.Second, func(e *event.Event) bool {
			return e.Status == event.StatusWaiting && e.Attention == event.AttnQuestion
		})
	}
	o := r.offerWith(t, from, w2, p, "Claude Code · project", "Has a question", second)
	if k = r.pressOption(t, o, p, 2, anthropic.AskOptions[1]); k.Status != "sent" || k.Text != "2" {
		t.Fatalf("the option's button: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, second+" → "+anthropic.AskOptions[1])
	t.Logf("statuses: %s", strings.Join(s.History(), " → "))
}

// paneWait waits for ag-detect's own pane wait for p (in ag-fold's input,
// ag-detect's output) and checks what it says.
func (w *hardWorld) paneWait(t *testing.T, p *Pane, attn, tool, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(w.pl.Outputs[1])
		for _, line := range strings.Split(string(b), "\n") {
			var e event.Event
			if event.Decode([]byte(line), &e) != nil || e.Kind != event.Wait || e.Src != event.SrcPane || e.Pane != p.ID {
				continue
			}
			if e.Attention == attn && e.Tool == tool && strings.Contains(e.Text, text) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("ag-detect: no pane wait (%s, %s, %q) for %s", attn, tool, text, p.ID)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestClaudePlan: an ExitPlanMode approval is a plan wait, and ag-keys
// approve types "2" (manual approval), never "1" (auto mode): Claude is
// back in its default mode afterwards, edits still gated. Without a plan
// file Claude asks a bare "Exit plan mode?" instead, whose Yes is "1".
func TestClaudePlan(t *testing.T) {
	t.Parallel()
	w := newHardWorld(t)
	p, s := w.claude(t, "plan", ClaudePlanModeOn, "--permission-mode", "plan")
	bare, bs := w.claude(t, "bare", ClaudePlanModeOn, "--permission-mode", "plan")

	t.Log("-- the plan picker: waiting(plan) → approve types 2 → working → done, manual mode")
	const plan = "Paint the button green and add a test."
	p.Type("PLAN: " + plan)
	st := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	screen := p.WaitText(15*time.Second, ClaudePlanAsk, ClaudePlanAuto, ClaudePlanManual)
	wt := st[1]
	if wt.Attention != event.AttnPlan {
		wt = s.WaitFor(t, "waiting on a plan", 10*time.Second, func(e *event.Event) bool {
			return e.Status == event.StatusWaiting && e.Attention == event.AttnPlan
		})
	}
	if wt.Tool != anthropic.ToolPlan || !strings.Contains(wt.Text, plan) {
		t.Errorf("plan state: tool %q text %q; want %s, %q\nscreen:\n%s", wt.Tool, wt.Text, anthropic.ToolPlan, plan, screen)
	}
	w.paneWait(t, p, event.AttnPlan, anthropic.ToolPlan, plan)
	w.waitToken(p, wt.Token)
	code, k := w.keys(t, "approve", "--pane", p.ID, "--token", wt.Token)
	if code != 0 || k.Status != "sent" || k.Text != "2" {
		t.Fatalf("approve on a plan: exit %d status %q text %q reason %q; want 0, sent, 2", code, k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	after := p.WaitText(10*time.Second, "User has approved your plan", ClaudeIdle)
	if strings.Contains(after, ClaudeAutoModeOn) || strings.Contains(after, ClaudePlanModeOn) {
		t.Errorf("after approving the plan the pane is not in the default (manual) mode:\n%s", after)
	}

	t.Log("-- the bare exit-plan picker: waiting(plan) → approve types 1 (its Yes) → done")
	bare.Type("PLAN-BARE: " + plan)
	st = bs.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	bare.WaitText(15*time.Second, ClaudePlanBare)
	wt = st[1]
	if wt.Attention != event.AttnPlan || wt.Tool != anthropic.ToolPlan {
		t.Errorf("bare plan state: attention %q tool %q; want plan, %s", wt.Attention, wt.Tool, anthropic.ToolPlan)
	}
	w.waitToken(bare, wt.Token)
	code, k = w.keys(t, "approve", "--pane", bare.ID, "--token", wt.Token)
	if code != 0 || k.Status != "sent" || k.Text != "1" {
		t.Fatalf("approve on the bare exit-plan picker: exit %d status %q text %q reason %q; want 0, sent, 1", code, k.Status, k.Text, k.Reason)
	}
	bs.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	// 2.1.197: "User has approved your plan"; 2.1.332: "User has approved
	// exiting plan mode".
	bare.WaitAnyText(10*time.Second, "User has approved your plan", "User has approved exiting plan mode")
	after = bare.WaitText(10*time.Second, ClaudeIdle)
	if strings.Contains(after, ClaudeAutoModeOn) || strings.Contains(after, ClaudePlanModeOn) {
		t.Errorf("after the bare picker's Yes the pane is not in the default mode:\n%s", after)
	}
	t.Logf("statuses: %s | %s", strings.Join(s.History(), " → "), strings.Join(bs.History(), " → "))
}

// TestClaudeSubAgent: a sub-agent's events (sub set) keep the main turn
// working until the main turn itself ends, and the sub-agent's tokens count
// toward the session.
func TestClaudeSubAgent(t *testing.T) {
	t.Parallel()
	w := newHardWorld(t)
	p, s := w.claude(t, "agent", ClaudeIdle)

	p.Type("AGENT: look around SLOW:3s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	begin := time.Now()
	done := s.Expect(t, 60*time.Second, event.StatusDone)[0]
	took := time.Since(begin)
	p.WaitText(10*time.Second, "FAKE-REPLY: the command finished")

	// The sub-agent ran against the fake: its request carries its prompt.
	var subEnd time.Time
	var want event.Tokens
	for _, r := range w.api.Requests() {
		if r.Tools > 0 {
			u := r.Usage
			want = want.Add(event.Tokens{In: u.In, Out: u.Out, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite})
		}
		if r.Tools > 0 && r.Prompt == "look around SLOW:3s" {
			subEnd = r.Time.Add(anthropic.DefaultSlow)
		}
	}
	if subEnd.IsZero() {
		t.Fatalf("no sub-agent request:\n%s", w.api.Log())
	}
	if done.T.Before(subEnd) {
		t.Errorf("done at %s, before the sub-agent's reply (%s)", done.T.Format("15:04:05.000"), subEnd.Format("15:04:05.000"))
	}
	w.pl.Out.Await(t, "with the tokens of main and sub-agent", 15*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Tokens != nil && *e.Tokens == want
	})
	// ag-fold saw the sub-agent's own events. Read once its tokens are in:
	// Claude Code can write the sub-agent's transcript after the turn's
	// end (CI once read ag-tail's output before it).
	b, _ := os.ReadFile(w.pl.Outputs[1])
	subs := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		var e event.Event
		if event.Decode([]byte(line), &e) == nil && e.Sub != "" && e.Session == s.ID {
			subs[e.Src+" "+e.Kind]++
		}
	}
	if subs["hook tool.start"] == 0 || subs["log meter"] == 0 {
		t.Errorf("events with sub: %v; want the sub-agent's own tool hooks and its transcript's meters", subs)
	}
	t.Logf("sub events %v; working → done took %s; statuses %s", subs, took.Round(time.Millisecond), strings.Join(s.History(), " → "))
}

// TestClaudeBackgroundAgent: a turn that ends while a background
// sub-agent runs (Stop's background_tasks) is still working, waiting for
// it; when the agent's result comes back Claude resumes the turn under a
// new prompt id, and only that ends it.
func TestClaudeBackgroundAgent(t *testing.T) {
	t.Parallel()
	w := newHardWorld(t)
	p, s := w.claude(t, "bg", ClaudeIdle)

	p.Type("AGENT-BG: dig in the background SLOW:5s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	bg := s.WaitFor(t, "waiting for the background agent", 30*time.Second, func(e *event.Event) bool {
		if e.Status != event.StatusWorking {
			t.Fatalf("status %s before the main turn ended with a background agent", e.Status)
		}
		return e.Pending == 1
	})
	if bg.Text != "waiting for 1 background agent" {
		t.Errorf("background state text %q", bg.Text)
	}
	done := s.Expect(t, 60*time.Second, event.StatusDone)[0]
	var subEnd time.Time
	for _, r := range w.api.Requests() {
		if r.Tools > 0 && r.Prompt == "dig in the background SLOW:5s" {
			subEnd = r.Time.Add(5 * time.Second)
		}
	}
	if subEnd.IsZero() {
		t.Fatalf("no sub-agent request:\n%s", w.api.Log())
	}
	if done.Run == "" || done.Run == bg.Run {
		t.Errorf("done in run %q; want the run the agent's notification resumed, not %q", done.Run, bg.Run)
	}
	if done.T.Before(subEnd) || done.Pending != 0 {
		t.Errorf("done at %s (pending %d), the background agent replied at %s", done.T.Format("15:04:05.000"), done.Pending, subEnd.Format("15:04:05.000"))
	}
	t.Logf("background: working(pending 1) at %s, done at %s; statuses %s", bg.T.Format("15:04:05.000"),
		done.T.Format("15:04:05.000"), strings.Join(s.History(), " → "))
}

// TestClaudeEnd: Escape before the first output (nothing written at all) and
// while a tool runs (no hook) is idle, /exit ends a session
// (SessionEnd hook), and a claude killed with SIGKILL (no hook) is gone
// once ag-fold finds its pid dead.
func TestClaudeEnd(t *testing.T) {
	t.Parallel()
	w := newHardWorld(t)
	p, s := w.claude(t, "exit", ClaudeIdle)
	k, ks := w.claude(t, "kill", ClaudeIdle)

	// Escape before the model's first output: Claude Code 2.1.197 puts the
	// prompt back in the composer and writes nothing at all (no hook, no
	// transcript line). The pane's composer, with nothing else heard for
	// ag-fold's idle grace (5 s), is what brings the session back to idle.
	p.Type("say hello SLOW:20s")
	s.Expect(t, 30*time.Second, event.StatusWorking)
	p.WaitText(10*time.Second, ClaudeWorking)
	// The user gives up on a model that is slow to answer. (ag-detect must
	// have seen the spinner: an Escape within its first poll is missed.)
	time.Sleep(3 * time.Second)
	esc := time.Now()
	p.Keys("Escape")
	p.WaitText(10*time.Second, "❯ say hello SLOW:20s")
	s.Expect(t, 20*time.Second, event.StatusIdle)
	t.Logf("Escape before the first output: idle after %s", time.Since(esc).Round(time.Millisecond))
	p.Keys("C-u") // clears the prompt Claude put back
	p.WaitText(10*time.Second, ClaudeIdle)

	// Escape while a tool runs fires no hook: the transcript's interrupt
	// line is what brings the session back to idle.
	p.Type("RUN: true && sleep 30") // Claude runs it without asking (2.1.332 refuses one that starts with sleep 25 or more)
	s.Expect(t, 30*time.Second, event.StatusWorking)
	p.WaitText(10*time.Second, "$ true && sleep 30", ClaudeWorking) // 2.1.197 said "Running…"
	esc = time.Now()
	p.Keys("Escape")
	s.Expect(t, 10*time.Second, event.StatusIdle)
	t.Logf("Escape while the tool runs: idle after %s", time.Since(esc).Round(time.Millisecond))
	p.WaitText(10*time.Second, ClaudeIdle)

	p.Type("/exit")
	g := s.Expect(t, 30*time.Second, event.StatusGone)[0]
	t.Logf("/exit: gone, reason %q", g.Reason)

	killed := time.Now()
	if err := syscall.Kill(k.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	g = ks.Expect(t, 15*time.Second, event.StatusGone)[0]
	took := time.Since(killed)
	if took > 5*time.Second {
		t.Errorf("gone %s after kill -9; want within 5s", took)
	}
	t.Logf("kill -9: gone after %s, reason %q", took.Round(time.Millisecond), g.Reason)
}

// TestClaudeApprovedLongTool: with pane detection, a command approved in
// the pane is working as soon as the prompt gives way to Claude at work,
// not when the command ends (Claude fires no hook in between: PostToolUse
// comes at the end). ag-fold's own check of the agent's processes would
// say so too, within its 2 s; the pane is first (~0.1–0.3 s here), and
// t/ag-detect-panes.txtar and the fold's table hold the pane rule alone.
func TestClaudeApprovedLongTool(t *testing.T) {
	t.Parallel()
	w := newHardWorld(t)
	p, s := w.claude(t, "long", ClaudeIdle)
	approvedLong(t, p, s, w.h.Project, "Bash", "1", func() {
		p.WaitText(10*time.Second, ClaudePermission)
		// ag-detect has seen the prompt (as a user who reads it first gives
		// it time to): what it sees next, Claude at work, is the answer.
		w.paneWait(t, p, event.AttnPermission, "Bash", "sleep 8")
	})
}

// TestClaudeReplyDefused: a reply that starts with "!" reaches the model
// as a message: typed bare, Claude would run it as a shell command (bash
// mode); ag-keys types one space in front, which Claude trims before
// sending. Claude Code 2.1.332 reads " /cost" as the slash command all the
// same (2.1.197 did not: checked by hand, the cost panel opens and nothing
// is sent), so a reply that starts with "/" is refused and nothing typed.
func TestClaudeReplyDefused(t *testing.T) {
	t.Parallel()
	w := newHardWorld(t)
	p, s := w.claude(t, "defuse", ClaudeIdle)
	p.Type("say hello")
	done := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)[1]
	p.WaitText(10*time.Second, ClaudeIdle)

	bang := filepath.Join(w.h.Project, "bang.txt")
	const reply = "!echo bang > bang.txt"
	w.waitToken(p, done.Token)
	code, k := w.keys(t, "reply", reply, "--pane", p.ID, "--token", done.Token)
	if code != 0 || k.Status != "sent" || !strings.Contains(k.Text, `" `+reply+`"`) {
		t.Fatalf("reply %q: exit %d status %q text %q reason %q; want sent with one space in front", reply, code, k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: "+reply)
	if _, err := os.Stat(bang); err == nil {
		t.Error("bang.txt exists: Claude ran the reply as a shell command")
	}
	done = s.Last
	w.waitToken(p, done.Token)
	posts := w.h.Requests()
	for _, slash := range []string{"/cost", "  /cost"} {
		code, k = w.keys(t, "reply", slash, "--pane", p.ID, "--token", done.Token)
		if code != 1 || k.Status != "refused" || !strings.Contains(k.Reason, "slash command") {
			t.Errorf("reply %q: exit %d status %q text %q reason %q; want refused (a slash command)", slash, code, k.Status, k.Text, k.Reason)
		}
	}
	// Nothing typed: no cost panel, the composer empty, nothing sent.
	if after := p.WaitText(5*time.Second, ClaudeIdle); strings.Contains(after, "Estimated cost") || strings.Contains(after, "❯ /cost") ||
		w.h.Requests() != posts {
		t.Errorf("the refused replies reached Claude:\n%s", after)
	}
	var prompts []string
	for _, r := range w.api.Requests() {
		prompts = append(prompts, r.Prompt)
	}
	if !slices.Contains(prompts, reply) {
		t.Errorf("the model never got %q as a message; prompts: %q", reply, prompts)
	}
}
