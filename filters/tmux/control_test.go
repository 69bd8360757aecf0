package tmux

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestControl: a control client runs commands in order (one failing among
// them), hears a pane's output and a subscription's change, never resizes
// the session nor changes its environment, and ends when the session does.
func TestControl(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	c := &Client{Socket: filepath.Join(t.TempDir(), "s")}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Run(ctx, "-f", "/dev/null", "new-session", "-d", "-s", "one", "-x", "101", "-y", "33", "cat"); err != nil {
		t.Fatal(err)
	}
	defer c.Run(context.Background(), "kill-server")
	id, err := c.Display(ctx, "one:", "#{session_id} #{pane_id}")
	if err != nil {
		t.Fatal(err)
	}
	sid, pane, _ := strings.Cut(id, " ")
	// The user's agent socket, in the session's environment: an attach
	// without -E replaces it with the attaching client's (none here).
	if _, err := c.Run(ctx, "set-environment", "-t", sid, "SSH_AUTH_SOCK", "/run/user/agent.sock"); err != nil {
		t.Fatal(err)
	}
	notes := NewNotes()
	ct, err := c.Attach(ctx, sid, notes)
	if err != nil {
		t.Fatal(err)
	}
	if env, err := c.Run(ctx, "show-environment", "-t", sid, "SSH_AUTH_SOCK"); err != nil || string(env) != "SSH_AUTH_SOCK=/run/user/agent.sock\n" {
		t.Errorf("the session's SSH_AUTH_SOCK after the attach: %q, %v", env, err)
	}
	if out, err := ct.Run(ctx, "display-message -p "+quoteArg("it's #{session_name}")); err != nil || out != "it's one" {
		t.Errorf("display: %q, %v", out, err)
	}
	if _, err := ct.Capture(ctx, "%99", 0); err == nil || !strings.Contains(err.Error(), "can't find pane") {
		t.Errorf("capture of no pane: %v", err)
	}
	lines, err := ct.ListPanes(ctx, "#{pane_id} #{window_width}x#{window_height}")
	if err != nil || len(lines) != 1 || lines[0] != pane+" 101x33" {
		t.Errorf("list-panes: %q, %v (the window resized?)", lines, err)
	}
	if _, err := ct.Run(ctx, "refresh-client -B "+quoteArg("t:%*:#{pane_title}")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(ctx, "send-keys", "-t", pane, "-l", "hello\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(ctx, "select-pane", "-t", pane, "-T", "new title"); err != nil {
		t.Fatal(err)
	}
	var output, title bool
	for !output || !title {
		select {
		case <-notes.Wake():
			for _, n := range notes.Take() {
				output = output || n.Name == "output" && n.Pane() == pane
				title = title || n.Name == "subscription-changed" && n.Pane() == pane && n.Value == "new title"
			}
		case <-ctx.Done():
			t.Fatalf("output seen %v, title change seen %v", output, title)
		}
	}
	if screen, err := ct.Capture(ctx, pane, 0); err != nil || !strings.Contains(screen, "hello") {
		t.Errorf("capture: %q, %v", screen, err)
	}
	c.Run(ctx, "kill-session", "-t", sid)
	select {
	case <-ct.Done():
	case <-ctx.Done():
		t.Fatal("the client outlived its session")
	}
	if _, err := ct.Run(ctx, "list-sessions"); err == nil {
		t.Error("a command after the end answered")
	}
	ct.Close()
	if q := notes.Take(); len(q) == 0 || q[len(q)-1].Name != "exit" {
		t.Errorf("the last note %v, want its exit", q)
	}
}

// TestAttachWhileBusy: control clients attached while the user switches
// panes as fast as tmux lets them leave the server running. A client
// attached by tmux -C (3.2 to 3.6) can be told of the switch before it
// is set up, and the server segfaults: here it did within 20 attaches.
func TestAttachWhileBusy(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	c := shortSocket(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Run(ctx, "-f", "/dev/null", "new-session", "-d", "-s", "busy", "cat", ";", "split-window", "cat"); err != nil {
		t.Fatal(err)
	}
	defer c.Run(context.Background(), "kill-server")
	// The user: select-pane back and forth, a notification each.
	storm := exec.CommandContext(ctx, "sh", "-c", `while tmux -S "$1" select-pane -t busy:0.0 \; select-pane -t busy:0.1; do :; done`, "sh", c.Socket)
	if err := storm.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { storm.Process.Kill(); storm.Wait() }()
	v := c.version(ctx)
	for i := range 200 {
		ct, err := c.Attach(ctx, "busy", NewNotes())
		if err != nil {
			t.Fatalf("tmux %s, attach %d: %v", v, i+1, err)
		}
		if _, err := ct.Run(ctx, "list-panes"); err != nil {
			t.Fatalf("tmux %s, attach %d: list-panes: %v", v, i+1, err)
		}
		ct.Close()
		if _, err := c.Run(ctx, "has-session", "-t", "busy"); err != nil {
			t.Fatalf("tmux %s: the server died after %d attaches: %v", v, i+1, err)
		}
	}
}
