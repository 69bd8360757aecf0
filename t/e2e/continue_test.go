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
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// TestContinue runs the real Continue CLI (cn 1.5.47) with only its
// built-in definition telling ag about it, and ag-detect --watch --all
// --panes | ag-fold watching its screen through tmux's control mode: a
// plain turn (working → done), a command approved with the definition's
// key (Tab), one denied (Escape), a question answered in its own words
// (Down to the field, the text, Enter), and --explain on the dialog.
func TestContinue(t *testing.T) {
	t.Parallel()
	bin := Install(t, Continue)
	CheckVersion(t, bin, Continue.Version)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	cfg := h.ContinueConfig(api)
	tm := h.StartTmux()
	pl := h.StartPipeline([]string{"ag-detect", "--watch", "--all", "--panes", "-S", tm.Socket}, []string{"ag-fold"})
	pane := h.StartContinue(tm, "cn", bin, cfg)
	up := pl.Outputs[0]
	s := pl.Out.Session("continue", "")
	h.WaitFile(up, 30*time.Second, `"kind":"proc.up","agent":"continue"`)

	t.Log("-- a plain turn: working → done, from the screen alone")
	pane.Type("say hello SLOW:3s")
	w := s.Expect(t, 60*time.Second, event.StatusWorking)[0]
	s.Expect(t, 60*time.Second, event.StatusDone)
	if w.Pane != pane.ID {
		t.Errorf("working state in pane %q, want %s", w.Pane, pane.ID)
	}
	pane.WaitText(10*time.Second, "FAKE-REPLY: say hello")

	t.Log("-- a command: waiting (permission, Bash), approved with Tab")
	pane.Type("please RUN: echo marker > marker.txt")
	// Working first, unless the dialog is up by the first read.
	wait := s.WaitFor(t, "waiting", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
	if wait.Attention != event.AttnPermission || wait.Tool != "Bash" || wait.Text != "echo marker > marker.txt" {
		t.Errorf("the wait: attention %q tool %q text %q", wait.Attention, wait.Tool, wait.Text)
	}
	explain := h.Run(30*time.Second, Bin(t, "ag-detect"), "-S", tm.Socket, "--explain", pane.ID)
	for _, want := range []string{"agent: continue (Continue CLI)", "rules from built in (builtin/continue.toml)",
		"screen: wait permission, state permission", "  approve       Tab", "  deny          Escape"} {
		if !strings.Contains(explain, want) {
			t.Errorf("--explain does not say %q:\n%s", want, explain)
		}
	}
	waitingInFile(h, pane, event.AttnPermission)
	if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "approve", "--pane", pane.ID, "-S", tm.Socket); code != 0 {
		t.Fatalf("ag-keys approve: exit %d %s", code, out)
	}
	h.WaitFile(filepath.Join(h.Project, "marker.txt"), 30*time.Second, "marker")
	s.WaitFor(t, "done after the approval", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })

	t.Log("-- another: denied with Escape, nothing run")
	pane.Type("RUN: echo denied > denied.txt")
	s.WaitFor(t, "waiting again", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
	waitingInFile(h, pane, event.AttnPermission)
	if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "deny", "--pane", pane.ID, "-S", tm.Socket); code != 0 {
		t.Fatalf("ag-keys deny: exit %d %s", code, out)
	}
	pane.WaitText(30*time.Second, "Permission denied by user")
	s.WaitFor(t, "no longer waiting", 30*time.Second, func(e *event.Event) bool { return e.Status != event.StatusWaiting })
	if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
		t.Error("the denied command ran")
	}

	t.Log("-- a question, answered in the user's own words")
	pane.Type(`CALL: AskQuestion {"question":"Which colour","options":["Blue","Green"]}`)
	q := s.WaitFor(t, "waiting on a question", 60*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusWaiting && e.Attention == event.AttnQuestion
	})
	if q.Tool != "AskQuestion" || q.Text != "Which colour" {
		t.Errorf("the question: tool %q text %q", q.Tool, q.Text)
	}
	// The picker's rows, read on the screen, are its options (buttons).
	if !slices.Equal(q.Options, []string{"Blue", "Green"}) {
		s.WaitFor(t, "the question's options", 10*time.Second, func(e *event.Event) bool {
			return e.Status == event.StatusWaiting && slices.Equal(e.Options, []string{"Blue", "Green"})
		})
	}
	waitingInFile(h, pane, event.AttnQuestion)
	if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "answer", "Teal please", "--pane", pane.ID, "-S", tm.Socket); code != 0 {
		t.Fatalf("ag-keys answer: exit %d %s", code, out)
	}
	pane.WaitText(30*time.Second, `User provided custom answer: "Teal please"`)
	s.WaitFor(t, "done after the answer", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
}

// waitingInFile waits for the state file ag-keys reads to say the pane's
// session waits (ag-fold writes it at most every 100 ms, after its event).
func waitingInFile(h *Harness, pane *Pane, attention string) {
	h.T.Helper()
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Pane == pane.ID && st.Status == event.StatusWaiting && st.Attention == attention {
				return true
			}
		}
		return false
	}, "the pane's session waiting on a "+attention)
}

// TestContinueLogin runs the real Continue CLI (cn 1.5.47), which no hook
// speaks for, under the login pipeline itself: contrib/ag-pipeline as the
// systemd unit and make run start it (this tree's programs on PATH,
// AG_TMUX naming the test's server, ag-notify finding the private D-Bus
// session bus). A command that needs approval is seen on cn's screen
// alone, notified with Approve and Deny; Approve pressed on the bus is
// typed (Tab) by the pipeline's own ag-keys, the command runs, and the
// session is done.
func TestContinueLogin(t *testing.T) {
	t.Parallel()
	bin := Install(t, Continue)
	CheckVersion(t, bin, Continue.Version)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	cfg := h.ContinueConfig(api)
	h.StartDBus()
	nd := h.StartNotifyd()
	tm := h.StartTmux()
	h.StartLogin(tm)
	pane := h.StartContinue(tm, "cn", bin, cfg)
	h.WaitState(60*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, pane.ID)
		return ok && st.Agent == "continue" && st.Status == event.StatusIdle
	}, "cn idle in its pane")

	t.Log("-- a command: waiting (permission, Bash) from the screen, notified, approved on the bus")
	pane.Type("please RUN: echo marker > marker.txt")
	waitingInFile(h, pane, event.AttnPermission)
	n, _ := nd.WaitCall(0, "Notify for the command", 30*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, "echo marker > marker.txt")
	})
	if b := n.Buttons(); !slices.Contains(b, "approve") || !slices.Contains(b, "deny") {
		t.Errorf("Notify %q %q offers %q, want approve and deny", n.Summary, n.Body, b)
	}
	nd.Press(n.ID, "approve")
	h.WaitFile(filepath.Join(h.Project, "marker.txt"), 30*time.Second, "marker")
	h.WaitState(60*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, pane.ID)
		return ok && st.Status == event.StatusDone
	}, "cn done after the approval")
}
