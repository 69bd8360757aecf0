//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/t/fakeapi/anthropic"
)

// Background sessions (Claude Code 2.1.332's `claude --bg`): run by a
// daemon in a pty it owns, with no tmux pane.

var backgrounded = regexp.MustCompile(`backgrounded · ([0-9a-z]+)`)

// startBackground runs `claude --bg prompt` (it returns at once) and gives
// the job it printed. The daemon it starts is stopped at teardown, with
// every session it runs.
func startBackground(t *testing.T, w *notifyWorld, prompt string) string {
	t.Helper()
	w.h.OnClose(func() {
		out, code := w.h.RunExit(60*time.Second, w.bin, "daemon", "stop", "--any")
		w.h.T.Logf("claude daemon stop --any: exit %d: %s", code, strings.TrimSpace(out))
	})
	out := w.h.Run(90*time.Second, w.bin, "--bg", prompt)
	m := backgrounded.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("claude --bg printed no job:\n%s", out)
	}
	return m[1]
}

// bgWait waits for the background session job to wait, and its
// notification: a Notify call carrying cmd with Approve, Deny and Open.
func bgWait(t *testing.T, w *notifyWorld, job, cmd string, from int) (*Session, event.Event, Call) {
	t.Helper()
	st := w.pl.Out.WaitFor(t, "background session "+job+" waiting", 90*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == claude.ID && e.Job == job && e.Status == event.StatusWaiting
	})
	if st.Where != event.WhereBackground || st.Pane != "" || st.PID == 0 || st.Tool != "Bash" || st.Text != cmd || st.Mode != event.ModeManual {
		t.Errorf("waiting state: where %q pane %q pid %d tool %q text %q mode %q; want background, no pane, a pid, Bash, %q, manual",
			st.Where, st.Pane, st.PID, st.Tool, st.Text, st.Mode, cmd)
	}
	note, _, ok := w.nd.FindCall(from, 20*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, cmd)
	})
	if !ok {
		t.Fatalf("no notification for %q", cmd)
	}
	for _, b := range []string{"approve", "deny", "default"} {
		if !slices.Contains(note.Buttons(), b) {
			t.Errorf("the notification offers %q, no %s", note.Actions, b)
		}
	}
	s := w.pl.Out.Session(claude.ID, st.Session)
	s.Last = st
	w.h.WaitState(10*time.Second, func(states []event.Event) bool {
		return slices.ContainsFunc(states, func(e event.Event) bool { return e.Token == st.Token })
	}, "the wait's token "+st.Token)
	return s, st, note
}

// bgKeys runs ag-keys with args on the test's tmux server and returns its
// keys event.
func bgKeys(t *testing.T, w *notifyWorld, args ...string) event.Event {
	t.Helper()
	out, code := w.h.RunExit(60*time.Second, append([]string{Bin(t, "ag-keys")}, append(args, "-S", w.tm.Socket)...)...)
	var k event.Event
	if event.Decode([]byte(strings.TrimSpace(out)), &k) != nil || k.Kind != event.Keys {
		t.Fatalf("ag-keys %q: exit %d, not one keys event: %s", args, code, out)
	}
	t.Logf("   ag-keys %s → exit %d, %s %q %s", strings.Join(args, " "), code, k.Status, k.Text, k.Reason)
	return k
}

// bgPress presses key on the notification and returns ag-keys' event.
func bgPress(t *testing.T, w *notifyWorld, note Call, st event.Event, key string) event.Event {
	t.Helper()
	w.nd.Press(note.ID, key)
	return w.keys.Out.WaitFor(t, key+" keys for token "+st.Token, 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Keys && e.Token == st.Token
	})
}

// TestClaudeBackground: a session started with `claude --bg` is a session
// like any other, marked as background (where, its job, no pane): working,
// waiting, notified; Approve pressed on the notification runs its command
// (ag-keys types into a hidden `claude attach` window it then closes), a
// reply typed the same way starts a new turn, which asks a question, and
// the user's own answer goes into it; Deny does not run its command; `ag-keys open` attaches a window to it, which ag-detect reports
// as that session's viewer — and nothing of the daemon, its pty hosts and
// spares; `claude respawn` keeps the session; `claude stop` makes it gone.
func TestClaudeBackground(t *testing.T) {
	t.Parallel()
	w := newNotifyWorld(t)
	h := w.h

	t.Log("-- approve from the notification")
	job := startBackground(t, w, "RUN: echo bg > bg.txt")
	s, st, note := bgWait(t, w, job, "echo bg > bg.txt", 0)
	if _, err := os.Stat(filepath.Join(h.Project, "bg.txt")); err == nil {
		t.Fatal("bg.txt exists before it was approved")
	}
	k := bgPress(t, w, note, st, "approve")
	if k.Status != "sent" || k.Text != "1" || k.Session != st.Session {
		t.Fatalf("keys: status %q text %q session %q reason %q; want sent 1", k.Status, k.Text, k.Session, k.Reason)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "bg.txt")); err != nil || string(b) != "bg\n" {
		t.Errorf("the approved command did not run: bg.txt %q, %v", b, err)
	}
	// The hidden view is gone, the session's terminal as it was.
	if out := w.tm.Run("list-sessions", "-F", "#{session_name}"); strings.Contains(out, "ag-view-") {
		t.Errorf("a hidden view is left:\n%s", out)
	}

	t.Log("-- reply: a new prompt typed into the finished session through a hidden view; it asks")
	done := s.Last
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		return slices.ContainsFunc(states, func(e event.Event) bool { return e.Token == done.Token })
	}, "the finished turn's token "+done.Token)
	const question = "Which colour should the button be?"
	reply := "ASK: " + question
	k = bgKeys(t, w, "reply", reply, "--session", st.Session, "--token", done.Token)
	if k.Status != "sent" || !strings.Contains(k.Text, reply) {
		t.Fatalf("reply --session: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	asked := s.WaitFor(t, "waiting on the question", 60*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusWaiting && e.Attention == event.AttnQuestion
	})
	if asked.Tool != anthropic.ToolAsk || asked.Text != question || !slices.Equal(asked.Options, anthropic.AskOptions[:]) || asked.Where != event.WhereBackground {
		t.Errorf("question state: tool %q text %q options %q where %q", asked.Tool, asked.Text, asked.Options, asked.Where)
	}
	if !slices.ContainsFunc(w.api.Requests(), func(r anthropic.Request) bool { return r.Prompt == reply }) {
		t.Errorf("the model never got the reply %q", reply)
	}
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		return slices.ContainsFunc(states, func(e event.Event) bool { return e.Token == asked.Token })
	}, "the question's token "+asked.Token)

	t.Log("-- answer: words of the user's own, into the question's \"Type something.\"")
	k = bgKeys(t, w, "answer", "Green please", "--session", st.Session, "--token", asked.Token)
	if k.Status != "sent" || k.Text != `3, 150ms, "Green please", 150ms, Enter` {
		t.Fatalf("answer --session: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if out := w.tm.Run("list-sessions", "-F", "#{session_name}"); strings.Contains(out, "ag-view-") {
		t.Errorf("a hidden view is left after the answer:\n%s", out)
	}

	t.Log("-- deny from the notification: a second background session")
	from := len(w.nd.Calls())
	job2 := startBackground(t, w, "RUN: echo no > no.txt")
	s2, st2, note2 := bgWait(t, w, job2, "echo no > no.txt", from)
	if k := bgPress(t, w, note2, st2, "deny"); k.Status != "sent" || k.Text != "Escape" {
		t.Fatalf("keys: status %q text %q reason %q; want sent Escape", k.Status, k.Text, k.Reason)
	}
	s2.Expect(t, 60*time.Second, event.StatusIdle)
	if _, err := os.Stat(filepath.Join(h.Project, "no.txt")); err == nil {
		t.Error("no.txt exists: the denied command ran")
	}

	t.Log("-- open: a window attached to the session, ag-detect's viewer; no daemon, pty host or spare")
	out, code := h.RunExit(60*time.Second, Bin(t, "ag-keys"), "open", "--session", st.Session, "-S", w.tm.Socket)
	var opened event.Event
	if event.Decode([]byte(strings.TrimSpace(out)), &opened) != nil || code != 0 || opened.Status != "sent" || opened.Pane == "" {
		t.Fatalf("ag-keys open: exit %d %s", code, out)
	}
	view := &Pane{tm: w.tm, ID: opened.Pane}
	view.WaitText(30*time.Second, "FAKE-REPLY: the command finished", question+" → Green please")
	var sightings []event.Event
	for line := range strings.Lines(h.Run(30*time.Second, Bin(t, "ag-detect"), "--all", "-S", w.tm.Socket)) {
		var e event.Event
		if event.Decode([]byte(strings.TrimSpace(line)), &e) == nil && e.Agent == claude.ID {
			sightings = append(sightings, e)
		}
	}
	if len(sightings) != 1 || sightings[0].Pane != opened.Pane || sightings[0].Where != event.WhereBackground ||
		sightings[0].Job != job || sightings[0].Session != st.Session {
		t.Errorf("ag-detect --all: %d claude sightings %v; want one, the viewer %s of %s (%s)", len(sightings), sightings, opened.Pane, job, st.Session)
	}
	w.tm.Run("kill-pane", "-t", opened.Pane)

	t.Log("-- respawn: the same session, its new process; stop: gone")
	old := s.Last.PID
	h.Run(60*time.Second, w.bin, "respawn", job)
	back := s.WaitFor(t, "back at work under a new process", 60*time.Second, func(e *event.Event) bool {
		return e.Status != event.StatusGone && e.PID != 0 && e.PID != old
	})
	if back.Where != event.WhereBackground || back.Job != job {
		t.Errorf("after respawn: where %q job %q", back.Where, back.Job)
	}
	h.Run(60*time.Second, w.bin, "stop", job)
	s.Expect(t, 30*time.Second, event.StatusGone)
	t.Logf("statuses %s | %s", strings.Join(s.History(), " → "), strings.Join(s2.History(), " → "))
}
