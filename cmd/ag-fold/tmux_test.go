package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/tmux"
	"github.com/agwatch/ag/filters/tmuxopts"
)

// tmuxServer starts a private tmux server: window 0 split in two panes
// (%0, %1), window 1 with one (%2). It is killed when the test ends.
func tmuxServer(t *testing.T) *tmux.Client {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	dir, err := os.MkdirTemp("", "agf") // short: socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	c := &tmux.Client{Socket: filepath.Join(dir, "s")}
	ctx := context.Background()
	for _, args := range [][]string{
		{"-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "100", "-y", "30", "sleep 600"},
		{"split-window", "-d", "-t", "t:0", "sleep 600"},
		{"new-window", "-d", "-t", "t:", "sleep 600"},
	} {
		if _, err := c.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		c.Run(context.Background(), "kill-server")
		os.RemoveAll(dir)
	})
	return c
}

// opt reads an option as a format sees it at target (pane or window).
func opt(t *testing.T, c *tmux.Client, target, format string) string {
	t.Helper()
	s, err := c.Display(context.Background(), target, format)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// show reads an option of exactly one scope (-p, -w, -g), "" when unset.
func show(t *testing.T, c *tmux.Client, scope, target, name string) string {
	t.Helper()
	args := []string{"show-options", "-qv" + scope}
	if target != "" {
		args = append(args, "-t", target)
	}
	out, err := c.Run(context.Background(), append(args, name)...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimRight(string(out), "\n")
}

func mkState(sec int, session, pane, status, attn, tool string) event.Event {
	e := event.New(event.State, time.Date(2026, 11, 30, 12, 0, sec, 0, time.UTC), "claude", session)
	e.Src, e.Pane, e.Status, e.Attention, e.Tool = event.SrcFold, pane, status, attn, tool
	return e
}

func TestPusherAgainstTmux(t *testing.T) {
	c := tmuxServer(t)
	ctx := context.Background()
	// An earlier run left options behind on %2 and its window.
	if _, err := c.Run(ctx, "set-option", "-p", "-t", "%2", "@ag_agent", "codex", ";",
		"set-option", "-p", "-t", "%2", "@ag_status", "waiting", ";",
		"set-option", "-w", "-t", "%2", "@ag_window_status", "waiting"); err != nil {
		t.Fatal(err)
	}
	var errs []string
	p := newPusher(c, hostname.Named("vm"), func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }, time.Now)
	step := func(name string, states ...event.Event) {
		t.Helper()
		p.update(states)
		if !p.sync(ctx) {
			t.Fatalf("%s: sync failed: %v", name, errs)
		}
	}

	step("working in %0", mkState(1, "a", "%0", "working", "", "Bash"))
	if got := opt(t, c, "%0", "#{@ag_agent} #{@ag_status} #{@ag_icon} #{@ag_tool}"); got != "claude working ⚙ Bash" {
		t.Errorf("pane %%0 = %q", got)
	}
	if got := show(t, c, "w", "%0", "@ag_window_status"); got != "working" {
		t.Errorf("window of %%0 = %q", got)
	}
	if got := show(t, c, "p", "%2", "@ag_agent") + show(t, c, "p", "%2", "@ag_status") + show(t, c, "w", "%2", "@ag_window_status"); got != "" {
		t.Errorf("options an earlier run left on %%2 were not cleared: %q", got)
	}
	if got := show(t, c, "g", "", "@ag_working") + "/" + show(t, c, "g", "", "@ag_summary"); got != "1/⚙1" {
		t.Errorf("global counts = %q", got)
	}

	calls := p.calls
	step("%1 waits", mkState(2, "b", "%1", "waiting", "permission", "Edit"))
	if p.calls != calls+1 {
		t.Errorf("a change took %d tmux invocations, want 1", p.calls-calls)
	}
	if got := show(t, c, "w", "%0", "@ag_window_status") + " " + show(t, c, "w", "%0", "@ag_window_icon"); got != "waiting ⏳" {
		t.Errorf("window worst-of = %q, want waiting", got)
	}
	// %0's own options still say working: the pane's name shadows nothing.
	if got := opt(t, c, "%0", "#{@ag_status} #{@ag_window_status}"); got != "working waiting" {
		t.Errorf("%%0 sees %q", got)
	}
	if got := opt(t, c, "%1", "#{@ag_status} #{@ag_attention} #{@ag_tool}"); got != "waiting permission Edit" {
		t.Errorf("%%1 = %q", got)
	}

	calls = p.calls
	step("nothing changed", mkState(3, "b", "%1", "waiting", "permission", "Edit"))
	if p.calls != calls {
		t.Errorf("an unchanged state ran tmux %d times", p.calls-calls)
	}

	step("%1 gone", mkState(4, "b", "%1", "gone", "", ""))
	if got := show(t, c, "p", "%1", "@ag_status") + show(t, c, "p", "%1", "@ag_agent"); got != "" {
		t.Errorf("gone session's pane options not cleared: %q", got)
	}
	if got := show(t, c, "w", "%0", "@ag_window_status"); got != "working" {
		t.Errorf("window after the wait went = %q, want working", got)
	}

	// A pane that closed under a session: the set fails, the pusher
	// relists and carries on with the rest.
	if _, err := c.Run(ctx, "kill-pane", "-t", "%0"); err != nil {
		t.Fatal(err)
	}
	step("%2 done, %0 gone", mkState(5, "c", "%2", "done", "", ""), mkState(5, "a", "%0", "gone", "", ""))
	if got := opt(t, c, "%2", "#{@ag_status} #{@ag_icon}"); got != "done ✓" {
		t.Errorf("%%2 = %q", got)
	}

	// The pipeline ends: everything it set goes.
	p.start(ctx)
	p.stop(ctx, true)
	if got := show(t, c, "p", "%2", "@ag_status") + show(t, c, "w", "%2", "@ag_window_status") + show(t, c, "g", "", "@ag_summary"); got != "" {
		t.Errorf("stop did not clear: %q", got)
	}
	if len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
}

func TestPusherWithoutServer(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	var errs []string
	c := &tmux.Client{Socket: filepath.Join(t.TempDir(), "none")}
	p := newPusher(c, hostname.Named("vm"), func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }, time.Now)
	p.update([]event.Event{mkState(1, "a", "%0", "working", "", "")})
	if p.sync(context.Background()) {
		t.Fatal("sync without a server succeeded")
	}
	p.update([]event.Event{mkState(2, "a", "%0", "done", "", "")})
	p.sync(context.Background())
	if len(errs) != 1 || !strings.Contains(errs[0], "no tmux server") {
		t.Errorf("errors = %q, want one 'no tmux server'", errs)
	}
	if p.backoff < retryMin {
		t.Errorf("backoff = %v", p.backoff)
	}
}

// The pipeline ends while a push is under way: stop cancels it, and the
// push, not knowing what tmux took, forgets what it had applied. The clear
// must still remove every option: it lists the panes again and unsets
// what it finds there. (Seen once under load in t/'s
// TestTmuxFoldOptionsAndFormats: "[done][done][1]" left after the end.)
func TestPusherStopAfterInterruptedPush(t *testing.T) {
	c := tmuxServer(t)
	ctx := context.Background()
	var errs []string
	p := newPusher(c, hostname.Named("vm"), func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }, time.Now)
	p.update([]event.Event{mkState(1, "a", "%0", "done", "", ""), mkState(1, "b", "%2", "waiting", "permission", "Bash")})
	if !p.sync(ctx) {
		t.Fatalf("sync: %v", errs)
	}
	// What push does when its tmux call fails or is cancelled.
	p.panes, p.server, p.applied = nil, "", map[tmuxopts.Target]tmuxopts.Values{}
	p.start(ctx)
	p.stop(ctx, true)
	got := show(t, c, "p", "%0", "@ag_status") + show(t, c, "w", "%0", "@ag_window_status") +
		show(t, c, "p", "%2", "@ag_status") + show(t, c, "g", "", "@ag_done") + show(t, c, "g", "", "@ag_summary")
	if got != "" {
		t.Errorf("stop after an interrupted push left %q", got)
	}
	if len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
}

// A session in a pane this server does not have (another server's, or
// one from before tmux restarted) costs nothing per change: the panes are
// listed again only when listAge has passed.
func TestPusherForeignPane(t *testing.T) {
	c := tmuxServer(t)
	ctx := context.Background()
	now := time.Now()
	p := newPusher(c, hostname.Named("vm"), t.Errorf, func() time.Time { return now })
	step := func(states ...event.Event) int {
		t.Helper()
		calls := p.calls
		p.update(states)
		if !p.sync(ctx) {
			t.Fatal("sync failed")
		}
		return p.calls - calls
	}
	step(mkState(1, "far", "%77", "working", "", ""), mkState(1, "a", "%0", "working", "", ""))
	if n := step(mkState(2, "a", "%0", "done", "", "")); n != 1 {
		t.Errorf("a change with a foreign pane about ran tmux %d times, want 1", n)
	}
	if n := step(mkState(3, "far", "%77", "done", "", "")); n != 1 {
		t.Errorf("the foreign session's change ran tmux %d times, want 1 (its counts)", n)
	}
	if got := show(t, c, "g", "", "@ag_done"); got != "2" {
		t.Errorf("@ag_done = %q: the foreign session still counts", got)
	}
	now = now.Add(listAge + time.Second)
	if n := step(mkState(4, "a", "%0", "working", "", "")); n != 2 {
		t.Errorf("after listAge a change ran tmux %d times, want 2 (list, set)", n)
	}
}

// respawn-pane keeps the pane's id and gives it a new tty: a session that
// starts there is shown at once, not after listAge.
func TestPusherRespawnedPane(t *testing.T) {
	c := tmuxServer(t)
	ctx := context.Background()
	now := time.Now()
	p := newPusher(c, hostname.Named("vm"), t.Errorf, func() time.Time { return now })
	tty := func() string { return opt(t, c, "%0", "#{pane_tty}") }
	old := mkState(1, "a", "%0", "working", "", "")
	old.TTY = tty()
	p.update([]event.Event{old})
	if !p.sync(ctx) {
		t.Fatal("sync failed")
	}
	if _, err := c.Run(ctx, "respawn-pane", "-k", "-t", "%0", "sleep 600"); err != nil {
		t.Fatal(err)
	}
	if tty() == old.TTY {
		t.Skip("this tmux keeps the tty on respawn")
	}
	now = now.Add(time.Second)
	gone := mkState(2, "a", "%0", "gone", "", "")
	gone.TTY = old.TTY
	next := mkState(2, "b", "%0", "waiting", "permission", "Bash")
	next.TTY = tty()
	p.update([]event.Event{gone, next})
	if !p.sync(ctx) {
		t.Fatal("sync failed")
	}
	if got := opt(t, c, "%0", "#{@ag_session} #{@ag_status}"); got != "b waiting" {
		t.Errorf("respawned pane shows %q, want the new session waiting", got)
	}
}
