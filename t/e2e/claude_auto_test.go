//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/fakeapi/anthropic"
)

// Auto mode, Claude Code 2.1.332's default: before it runs a tool call it
// asks the API's safety check (the request's safeguards); the fake answers
// as the API does (safeguard_results in the reply), passing a call and
// flagging the ones a RISKY prompt asked for.

// newAutoWorld is hardWorld (hooks, ag-tail and ag-detect's pane rules
// into ag-fold) with Claude Code in auto mode against a fake with opts.
func newAutoWorld(t *testing.T, opts anthropic.Options) *hardWorld {
	t.Helper()
	bin := Install(t, Claude)
	CheckVersion(t, bin, Claude.Version)
	h := New(t)
	w := &hardWorld{h: h, bin: bin}
	w.api = h.FakeAnthropicWith(opts)
	h.ClaudeConfig()
	h.ClaudeMode("auto")
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "claude")
	w.tm = h.StartTmux()
	w.pl = h.StartPipeline(append(LoginStages(w.tm), []string{"ag-fold"})...)
	return w
}

// verdicts are the safety check's answers to the calls a prompt asked for.
func verdicts(api *anthropic.Server, prompt string) []string {
	var out []string
	for _, r := range api.Requests() {
		if r.Prompt == prompt && r.Verdict != "" {
			out = append(out, r.Verdict)
		}
	}
	return out
}

// spoolHas reports whether the spool holds a hook event of kind with reason.
func spoolHas(h *Harness, kind, reason string) bool {
	b, _ := os.ReadFile(filepath.Join(h.AGDir, "spool.ndjson"))
	for _, line := range strings.Split(string(b), "\n") {
		var e event.Event
		if event.Decode([]byte(line), &e) == nil && e.Kind == kind && e.Reason == reason && e.Src == event.SrcHook {
			return true
		}
	}
	return false
}

// TestClaudeAuto: in auto mode a call the safety check passes runs (working
// → done, no wait); a call it flags is blocked (PermissionDenied: the call
// ends, blocked, and the turn goes on to done — no wait nobody can
// answer); after the blocks Claude hands the next flagged call to the user
// (its usual prompt: a real wait, answered with ag-keys); the state says
// mode auto throughout.
func TestClaudeAuto(t *testing.T) {
	t.Parallel()
	w := newAutoWorld(t, anthropic.Options{})
	p, s := w.claude(t, "auto", ClaudeAutoIdle)

	t.Log("-- a call the check passes: working → done")
	ran := filepath.Join(w.h.Project, "ran.txt")
	ClaudeType(p, "RUN: echo ran > ran.txt")
	d := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)[1]
	if _, err := os.Stat(ran); err != nil {
		t.Errorf("the passed call did not run: %v", err)
	}
	if v := verdicts(w.api, "RUN: echo ran > ran.txt"); len(v) != 1 || v[0] != anthropic.VerdictNotFlagged {
		t.Errorf("the check's verdicts: %q, want one not_flagged", v)
	}
	if d.Mode != event.ModeAuto {
		t.Errorf("done state: mode %q, want auto", d.Mode)
	}
	p.WaitText(10*time.Second, ClaudeAutoIdle)

	t.Log("-- flagged calls: blocked, the turn goes on to done, until Claude asks the user")
	var wt event.Event
	blocked := 0
	for i := 1; wt.Status == ""; i++ {
		if i > 4 {
			t.Fatalf("%d calls blocked, none handed to the user", blocked)
		}
		name := "b" + string(rune('0'+i)) + ".txt"
		ClaudeType(p, "RISKY RUN: echo blocked > "+name)
		st := s.Expect(t, 30*time.Second, event.StatusWorking)[0]
		next := s.WaitFor(t, "done or waiting", 30*time.Second, func(e *event.Event) bool {
			return e.Status == event.StatusDone || e.Status == event.StatusWaiting
		})
		if next.Status == event.StatusWaiting {
			wt = next
			break
		}
		blocked++
		if _, err := os.Stat(filepath.Join(w.h.Project, name)); err == nil {
			t.Errorf("%s exists: the blocked call ran", name)
		}
		if st.Mode != event.ModeAuto {
			t.Errorf("working state: mode %q, want auto", st.Mode)
		}
		p.WaitText(10*time.Second, "Blocked by auto mode", ClaudeAutoIdle)
	}
	if blocked == 0 || !spoolHas(w.h, event.ToolEnd, event.ReasonBlocked) {
		t.Errorf("%d calls blocked; a hook's tool.end with reason blocked in the spool: %v", blocked, spoolHas(w.h, event.ToolEnd, event.ReasonBlocked))
	}
	screen := p.WaitText(15*time.Second, ClaudePermission, "consecutive actions were blocked")
	if wt.Attention != event.AttnPermission || wt.Tool != "Bash" || !strings.Contains(wt.Text, "echo blocked") {
		t.Errorf("the handed-over wait: attention %q tool %q text %q\n%s", wt.Attention, wt.Tool, wt.Text, screen)
	}
	w.waitToken(p, wt.Token)
	if code, k := w.keys(t, "approve", "--pane", p.ID, "--token", wt.Token); code != 0 || k.Status != "sent" || k.Text != "1" {
		t.Fatalf("approve: exit %d status %q text %q reason %q; want sent 1", code, k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if _, err := os.Stat(filepath.Join(w.h.Project, "b"+string(rune('0'+blocked+1))+".txt")); err != nil {
		t.Errorf("the approved call did not run: %v", err)
	}
	t.Logf("%d blocked; statuses %s", blocked, strings.Join(s.History(), " → "))
}

// TestClaudeAutoHold: behind a gateway that drops the safety check's
// verdicts, auto mode holds the first action that needs one ("Auto mode
// can't check actions in this session"): a permission wait (reason
// unchecked) about that call, answerable with ag-keys (Enter: stay in auto
// mode). The action's own prompt that follows ("❯ No" / "Yes") is a new
// wait with a new token: approve is Down, Enter, and the call runs; the
// next such prompt denied (Escape) leaves the call unrun and the session
// idle.
func TestClaudeAutoHold(t *testing.T) {
	t.Parallel()
	w := newAutoWorld(t, anthropic.Options{NoVerdicts: true})
	p, s := w.claude(t, "hold", ClaudeAutoIdle)
	h := w.h

	victim := filepath.Join(h.Root, "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := "rm -rf " + victim
	ClaudeType(p, "RUN: "+cmd)
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	p.WaitText(15*time.Second, "Auto mode can't check actions", "Enter to stay in auto mode")
	hold := s.WaitFor(t, "waiting on the hold (its hook: unchecked)", 30*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusWaiting && e.Reason == event.ReasonUnchecked
	})
	if hold.Attention != event.AttnPermission || hold.Tool != "Bash" || hold.Text != cmd {
		t.Errorf("the hold: attention %q tool %q text %q; want permission, Bash, %q", hold.Attention, hold.Tool, hold.Text, cmd)
	}
	w.waitToken(p, hold.Token)
	if code, k := w.keys(t, "approve", "--pane", p.ID, "--token", hold.Token); code != 0 || k.Status != "sent" || k.Text != "Enter" {
		t.Fatalf("approve on the hold: exit %d status %q text %q reason %q; want sent Enter", code, k.Status, k.Text, k.Reason)
	}
	p.WaitText(15*time.Second, "so this one needs your approval", "❯ No")
	prompt := s.WaitFor(t, "a new wait for the action's own prompt", 30*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusWaiting && e.Token != hold.Token
	})
	if prompt.Tool != "Bash" || prompt.Text != cmd || prompt.Reason != "" {
		t.Errorf("the action's prompt: tool %q text %q reason %q", prompt.Tool, prompt.Text, prompt.Reason)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the held call ran before it was approved: %v", err)
	}
	// The hold's token no longer answers anything.
	if code, k := w.keys(t, "approve", "--pane", p.ID, "--token", hold.Token); code != 1 || k.Status != "refused" {
		t.Errorf("approve with the hold's token: exit %d status %q", code, k.Status)
	}
	w.waitToken(p, prompt.Token)
	if code, k := w.keys(t, "approve", "--pane", p.ID, "--token", prompt.Token); code != 0 || k.Status != "sent" || k.Text != "Down, 30ms, Enter" {
		t.Fatalf("approve on the prompt: exit %d status %q text %q reason %q; want sent Down, 30ms, Enter", code, k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if _, err := os.Stat(victim); err == nil {
		t.Error("the approved call did not run")
	}
	p.WaitText(10*time.Second, ClaudeAutoIdle)

	t.Log("-- the next such call: its prompt at once, denied")
	keep := filepath.Join(h.Root, "keep")
	if err := os.Mkdir(keep, 0o700); err != nil {
		t.Fatal(err)
	}
	ClaudeType(p, "RUN: rm -rf "+keep)
	s.Expect(t, 30*time.Second, event.StatusWorking)
	p.WaitText(15*time.Second, "❯ No")
	wt := s.WaitFor(t, "waiting", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
	w.waitToken(p, wt.Token)
	if code, k := w.keys(t, "deny", "--pane", p.ID, "--token", wt.Token); code != 0 || k.Status != "sent" || k.Text != "Escape" {
		t.Fatalf("deny: exit %d status %q text %q reason %q", code, k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusIdle)
	p.WaitText(10*time.Second, ClaudeDenied)
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the denied call ran: %v", err)
	}
	if got := s.Last.Mode; got != event.ModeAuto {
		t.Errorf("mode %q, want auto", got)
	}
	t.Logf("statuses %s", strings.Join(s.History(), " → "))
}
