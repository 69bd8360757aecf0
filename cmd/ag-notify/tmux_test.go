package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// tmuxWithClient starts a private tmux server with session "main" (window
// 0, pane %0 active; window 1, pane %1 in the background) and attaches a
// real client to it inside script(1), whose typescript records everything
// that client's terminal receives.
func tmuxWithClient(t *testing.T) (sock, typescript string, keyboard io.Writer) {
	t.Helper()
	for _, bin := range []string{"tmux", "script"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not installed", bin)
		}
	}
	dir := shortDir(t)
	sock, typescript = dir+"/sock", dir+"/typescript"
	tm := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %q: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tm("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "160", "-y", "30")
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	tm("new-window", "-d", "-t", "main")
	if panes := tm("list-panes", "-s", "-t", "main", "-F", "#{pane_id}"); panes != "%0\n%1" {
		t.Fatalf("panes = %q", panes)
	}
	cl := exec.Command("script", "-qfec", "tmux -S "+sock+" attach -t main", typescript)
	cl.Env = append(os.Environ(), "TERM=xterm-256color")
	stdin, err := cl.StdinPipe() // the client's keyboard, held open until cleanup
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cl.Process.Kill(); cl.Wait() })
	waitFor(t, 5*time.Second, "a tmux client", func() bool {
		out, _ := exec.Command("tmux", "-S", sock, "list-clients", "-F", "#{client_tty}").Output()
		return len(strings.TrimSpace(string(out))) > 0
	})
	return sock, typescript, stdin
}

func inPane(e event.Event, pane string) event.Event { e.Pane = pane; return e }

func TestTmux(t *testing.T) {
	sock, typescript, keyboard := tmuxWithClient(t)
	screen := func() string { b, _ := os.ReadFile(typescript); return string(b) }
	// onScreen waits for text on the client's terminal. The script(1)
	// terminal answers no queries, and tmux then redraws a popup's text
	// lazily: each look asks for a redraw.
	onScreen := func(t *testing.T, text string) {
		t.Helper()
		waitFor(t, 5*time.Second, fmt.Sprintf("%q on the client's screen", text), func() bool {
			exec.Command("tmux", "-S", sock, "refresh-client").Run()
			return strings.Contains(screen(), text)
		})
	}

	t.Run("quiet while looking", func(t *testing.T) {
		dir := t.TempDir()
		p := start(t, nil, "--exec", execCmd(dir), "-S", sock)
		// %0 is the active pane of the attached session: no notification.
		p.send(inPane(state("looked", "waiting", "permission", "1.1"), "%0"))
		p.send(inPane(state("hidden", "waiting", "permission", "1.1"), "%1"))
		if d := p.next(event.Notify); d.Session != "hidden" {
			t.Errorf("notified %q; want only the session in the background pane", d.Session)
		}
		p.stop()
		if rs := execRecords(t, dir); len(rs) != 1 || rs[0].Session != "hidden" {
			t.Errorf("exec ran for %+v; want only session hidden", rs)
		}
	})

	t.Run("display-message", func(t *testing.T) {
		p := start(t, nil, "--backend", "tmux", "-S", sock)
		w := inPane(state("msg", "waiting", "permission", "1.1"), "%1")
		w.Text = "echo #{pane_id}#(id)"
		p.send(w)
		if d := p.next(event.Notify); d.Backend != "tmux" || d.Ref == "" {
			t.Errorf("notify event = %+v", d)
		}
		p.stop()
		waitFor(t, 3*time.Second, "the message on the client's status line", func() bool {
			return strings.Contains(screen(), "Needs permission: Bash: echo #{pane_id}#(id)")
		})
		if s := p.stderr.String(); s != "" {
			t.Errorf("stderr: %s", s)
		}
	})

	t.Run("osc to the client tty", func(t *testing.T) {
		p := start(t, nil, "--backend", "osc", "-S", sock)
		p.send(inPane(state("osc", "waiting", "question", "1.1"), "%1"))
		if d := p.next(event.Notify); d.Backend != "osc" || !strings.HasPrefix(d.Ref, "/dev/pts/") {
			t.Errorf("notify event = %+v; want osc to the client's pty", d)
		}
		p.stop()
		want := "\x1b]9;Claude Code · ag:main — Has a question: Which database?\x07"
		waitFor(t, 3*time.Second, "OSC 9 at the client's terminal", func() bool { return strings.Contains(screen(), want) })
	})

	t.Run("popup answers", func(t *testing.T) {
		p := start(t, nil, "--backend", "tmux", "--tmux-popup", "-S", sock)
		p.send(inPane(state("pop", "waiting", "permission", "7.7"), "%1"))
		d := p.next(event.Notify)
		if d.Ref != "popup:/dev/pts/"+strings.TrimPrefix(d.Ref, "popup:/dev/pts/") {
			t.Errorf("notify event = %+v; want a popup", d)
		}
		onScreen(t, "[a] Approve  [d] Deny  [r text] Reply")
		io.WriteString(keyboard, "r  looks good\r")
		a := p.next(event.Action)
		if a.Action != "reply" || a.Text != "looks good" || a.Token != "7.7" || a.Backend != "tmux" {
			t.Errorf("popup press = %+v; want reply \"looks good\" on token 7.7", a)
		}
		// A second wait's popup is taken down when the wait resolves. (The
		// first popup closes once its command has sent the answer; tmux
		// shows one popup per client, so wait until ag-notify has seen it
		// close.)
		var pop *popups
		for _, w := range p.c.workers {
			if b, ok := w.b.(*tmuxBackend); ok {
				pop = b.popup
			}
		}
		waitFor(t, 5*time.Second, "the answered popup to close", func() bool {
			_, busy := pop.busy([]string{strings.TrimPrefix(d.Ref, "popup:")})
			return len(busy) == 0
		})
		p.send(inPane(state("pop2", "waiting", "plan", "8.8"), "%1"))
		p.next(event.Notify)
		onScreen(t, "Plan ready for review")
		p.send(inPane(state("pop2", "working", "", "9.9"), "%1"))
		if r := p.next(event.Notify); r.Action != "retract" || r.Ref != "popup" {
			t.Errorf("after resolution: %+v; want the popup retracted", r)
		}
		p.stop()
	})

	// approveInPopup sends a wait of session on token and answers its
	// popup with a: the press must come out as that approve.
	approveInPopup := func(t *testing.T, p *proc, session, token string) {
		t.Helper()
		p.send(inPane(state(session, "waiting", "permission", token), "%1"))
		if d := p.next(event.Notify); d.Session != session || d.Backend != "tmux" || !strings.HasPrefix(d.Ref, "popup:") {
			t.Errorf("notify event = %+v; want the wait in a tmux popup", d)
		}
		onScreen(t, "[a] Approve  [d] Deny")
		io.WriteString(keyboard, "a\r")
		a, ok := p.within(event.Action, 5*time.Second)
		if !ok && strings.Contains(screen(), "[a] Approve  [d] Deny") {
			// On a loaded machine a key can reach the popup before
			// its program reads the terminal: a user presses again.
			io.WriteString(keyboard, "a\r")
			a = p.next(event.Action)
		}
		if a.Session != session || a.Action != "approve" || a.Token != token {
			t.Errorf("popup press = %+v; want approve of %s on token %s", a, session, token)
		}
	}

	// Only a wait opens a popup: a popup takes the keyboard, and a finished
	// turn's would take whatever the user types next. It is a line.
	t.Run("a finished turn is no popup", func(t *testing.T) {
		p := start(t, nil, "--backend", "tmux", "--tmux-popup", "-S", sock, "--debounce", "0s")
		p.send(inPane(state("fin", "working", "", "3.1"), "%1"))
		p.send(inPane(state("fin", "done", "", "3.2"), "%1"))
		if d := p.next(event.Notify); strings.HasPrefix(d.Ref, "popup:") || d.Ref == "" {
			t.Errorf("notify event = %+v; want a message on the client, no popup", d)
		}
		approveInPopup(t, p, "ask", "4.4")
		p.stop()
	})

	// With no desktop notification server, auto takes tmux and its popup,
	// and says so once (OSC 9 to a client inside tmux is often swallowed).
	t.Run("auto without D-Bus: the popup", func(t *testing.T) {
		p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"}, "-S", sock)
		approveInPopup(t, p, "auto", "5.5")
		p.stop()
		want := "ag-notify: notifying through tmux: no desktop notification server on D-Bus"
		if s := p.stderr.String(); strings.Count(s, want) != 1 || !strings.Contains(s, "a popup on the pane's clients") {
			t.Errorf("stderr %q; want once %q… a popup", s, want)
		}
	})

	t.Run("looking at the pane retracts", func(t *testing.T) {
		dir := t.TempDir()
		// A sweep every 200ms, not every 3s: a loaded machine can make one
		// sweep's tmux call miss its budget, and the next must still come
		// within next's 5s.
		p := start(t, nil, "--exec", execCmd(dir), "-S", sock, "--focus-check", "200ms")
		p.send(inPane(state("seen", "waiting", "plan", "1.1"), "%1"))
		p.next(event.Notify)
		if out, err := exec.Command("tmux", "-S", sock, "select-window", "-t", "main:1").CombinedOutput(); err != nil {
			t.Fatalf("select-window: %v %s", err, out)
		}
		r := p.next(event.Notify)
		if r.Action != "retract" || r.Reason != "seen" || r.Session != "seen" {
			t.Errorf("after focusing the pane: %+v; want a retract, reason seen", r)
		}
		p.stop()
	})
}
