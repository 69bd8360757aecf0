package main

import (
	"context"
	"strings"
	"time"

	pidalive "github.com/agwatch/ag/filters/alive"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/fold"
	"github.com/agwatch/ag/filters/proc"
)

// No hook says that a permission prompt was answered: Claude's PostToolUse
// and Codex's command output come when the command has finished, so an
// approved command that runs for minutes would read as waiting for the
// user all along. What does show at once is the command itself, running
// under the agent's process. Every --check, for each session waiting to
// run a command (and only then), ag-fold looks among the agent's
// descendants and folds a wait.end (src proc, reason busy) when it finds it.

// maxDescendants bounds how much of an agent's process tree is looked at.
const maxDescendants = 64

// commands finds which of the waits' commands already run, by index.
type commands func(ctx context.Context, waits []fold.Wait) map[int]bool

// answers folds a wait.end for every wait whose command runs.
func (f *folder) answers(ctx context.Context, now time.Time) []event.Event {
	var waits []fold.Wait
	for _, w := range f.fold.Waits() {
		if local(fold.Proc{PID: w.PID, Host: w.Host}) && needle(w.Text) != "" {
			waits = append(waits, w)
		}
	}
	if len(waits) == 0 {
		return nil
	}
	var out []event.Event
	found := f.running(ctx, waits)
	for i, w := range waits {
		if !found[i] {
			continue
		}
		e := event.New(event.WaitEnd, now, w.Agent, w.Session)
		e.Src, e.Reason, e.PID, e.Tool, e.Text = event.SrcProc, event.ReasonBusy, w.PID, w.Tool, w.Text
		e.ID = event.MakeID(event.SrcProc, "answered", w.Agent, w.Session, w.Since.String(), w.Text)
		out = append(out, f.fold.Apply(&e)...)
	}
	return out
}

// running looks for each wait's command among its agent's descendants,
// started since the wait began (an older copy of the same command, a dev
// server left running, answers nothing).
func running(ctx context.Context, waits []fold.Wait) map[int]bool {
	var tab *proc.Table // read only where the kernel keeps no child lists
	descendants := func(pid int) []int {
		if kids, ok := childLists(pid); ok {
			return kids
		}
		if tab == nil {
			var err error
			if tab, err = proc.Snapshot(ctx); err != nil {
				return nil
			}
		}
		return tab.Descendants(pid, maxDescendants)
	}
	sys := proc.System{Ctx: ctx}
	found := map[int]bool{}
	for i, w := range waits {
		n := needle(w.Text)
		for _, pid := range descendants(w.PID) {
			if !strings.Contains(strings.Join(sys.Argv(pid), " "), n) {
				continue
			}
			if t := sys.Started(pid); !t.IsZero() && t.Before(w.Since.Add(-pidalive.Slack)) {
				continue
			}
			found[i] = true
			break
		}
	}
	return found
}

// childLists is descendantsOf; the tests take the table's path with it.
var childLists = descendantsOf

// descendantsOf walks pid's children lists (proc.Children), nearest
// first; ok false where the kernel keeps none.
func descendantsOf(pid int) (out []int, ok bool) {
	next := []int{pid}
	for len(next) > 0 && len(out) < maxDescendants {
		var deeper []int
		for _, p := range next {
			kids, ok := proc.Children(p)
			if !ok {
				if p == pid {
					return nil, false
				}
				continue // gone since
			}
			deeper = append(deeper, kids...)
		}
		out = append(out, deeper...)
		next = deeper
	}
	if len(out) > maxDescendants {
		out = out[:maxDescendants]
	}
	return out, true
}

// needle is the part of a command that shows unchanged in the command
// line of the process running it: its first line, up to the first
// character a shell or the agent's own quoting may rewrite; "" when that
// is too short to tell one command from another (a command that short
// rarely runs long enough to matter).
func needle(cmd string) string {
	cmd = strings.TrimSuffix(cmd, "…")
	if i := strings.IndexAny(cmd, "\n'\"\\$`"); i >= 0 {
		cmd = cmd[:i]
	}
	cmd = strings.TrimSpace(cmd)
	if len(cmd) < 8 {
		return ""
	}
	return cmd
}
