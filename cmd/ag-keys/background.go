package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/filters/proc"
	"github.com/agwatch/ag/providers"
	"github.com/agwatch/ag/providers/provider"
)

// A background session (Claude Code's --bg) has no pane of its own. To
// answer it, ag-keys shows it in one: a hidden tmux session running the
// agent's attach command (claude attach <job>) at the size of the
// session's own terminal, so the session is left as it was; the keys go in
// there like into any pane, after the same checks of the screen, and the
// hidden session is killed once the prompt has taken them (the session
// runs on). To show it to the user (open), a window of theirs runs the
// same command.

// Bounds of a hidden view: how long the attach command may take to draw
// the session, and how long the prompt may take to go once answered.
const (
	viewDraw = 10 * time.Second
	viewTake = 3 * time.Second
	viewPoll = 100 * time.Millisecond
)

// The size of a background session's terminal when it cannot be read:
// Claude Code's daemon gives its ptys 200x50.
const bgCols, bgRows = 200, 50

// background reports whether st is a background session ag-keys can show.
func background(st event.Event) bool {
	_, ok := providers.ByID(st.Agent).(provider.Attacher)
	return ok && st.Where == event.WhereBackground && st.Job != ""
}

// attachCommand is the command line and environment that show st: the
// session process's own program and the variables it names, when the
// process is known here, else the agent's usual name and ours.
func attachCommand(st event.Event) ([]string, []string) {
	at := providers.ByID(st.Agent).(provider.Attacher)
	var sys proc.System
	bin := ""
	var env []string
	if st.PID > 0 {
		bin = sys.Exe(st.PID)
		env = sys.Env(st.PID)
	}
	if bin != "" {
		if _, err := os.Stat(bin); err != nil {
			bin = "" // replaced since (an update): the usual name
		}
	}
	var vars []string
	for _, k := range at.AttachEnv() {
		v, ok := proc.Getenv(env, k)
		if !ok {
			v, ok = os.LookupEnv(k)
		}
		if ok {
			vars = append(vars, k+"="+v)
		}
	}
	return at.AttachArgv(bin, st.Job), vars
}

// hidden is a detached tmux session showing a background session.
type hidden struct {
	name, pane string
}

// showHidden starts the hidden view of st and waits until it shows a
// screen the agent's rules know (rules nil: any text).
func (c *cmd) showHidden(ctx context.Context, st event.Event, rules *panes.Rules) (*hidden, error) {
	argv, env := attachCommand(st)
	cols, rows := ttySize(st.TTY)
	if cols < 20 || rows < 5 {
		cols, rows = bgCols, bgRows
	}
	h := &hidden{name: "ag-view-" + st.Job + "-" + strconv.Itoa(os.Getpid())}
	args := []string{"new-session", "-d", "-s", h.name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows),
		"-P", "-F", "#{pane_id}"}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	out, err := c.tmux.Run(ctx, append(append(args, "--"), argv...)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	h.pane = strings.TrimSpace(string(out))
	for waited := time.Duration(0); ; waited += viewPoll {
		screen, err := c.tmux.Capture(ctx, h.pane, 0)
		if err == nil && (rules == nil && strings.TrimSpace(screen) != "" ||
			rules != nil && panes.Classify(rules, screen).Kind != panes.None) {
			return h, nil
		}
		if waited >= viewDraw {
			c.closeHidden(h, nil, "")
			return nil, fmt.Errorf("%s showed no %s screen within %s", strings.Join(argv, " "), st.Agent, viewDraw)
		}
		if err := c.sleep(ctx, viewPoll); err != nil {
			c.closeHidden(h, nil, "")
			return nil, err
		}
	}
}

// closeHidden kills the hidden view once the screen shows the keys taken
// (see taken; before is the screen before typing, as classified: kind,
// state and text), or after viewTake: killed sooner, the attach command
// could drop keys it had not passed on. A screen other than before is not
// enough: a step that changed it (Claude's "Type something." opening its
// input) is no proof that the last one, the Enter, was read.
func (c *cmd) closeHidden(h *hidden, rules *panes.Rules, before string) {
	ctx := context.Background()
	wait := strings.HasPrefix(before, panes.Wait.String()+"\x00")
	typed := ""
	for waited := time.Duration(0); rules != nil && before != "" && waited < viewTake; waited += viewPoll {
		screen, err := c.tmux.Capture(ctx, h.pane, 0)
		if err != nil {
			break
		}
		r := panes.Classify(rules, screen)
		k := screenKey(r)
		if waited == 0 {
			typed = k
		}
		if taken(wait, r.Kind, k != before && k != typed) {
			break
		}
		time.Sleep(viewPoll)
	}
	c.tmux.Run(ctx, "kill-session", "-t", "="+h.name)
}

// taken says whether a screen of kind shows the keys taken, after a
// prompt (wait) or a composer: the agent at work or back at its composer
// after a prompt, or a screen of a known kind new since the typing
// (changed). A screen no rule reads (Claude's "Type something." row with
// the words in it) proves nothing.
func taken(wait bool, kind panes.Kind, changed bool) bool {
	if wait && (kind == panes.Busy || kind == panes.Idle) {
		return true
	}
	return kind != panes.None && changed
}

// screenKey is what a classified screen shows, to tell when it changed.
func screenKey(r panes.Result) string {
	return r.Kind.String() + "\x00" + r.State + "\x00" + r.Text
}

// open shows st in a window of the user's tmux server: a new window
// running the attach command for a background session (selected, and the
// client switched to it when one is attached), the session's own pane
// otherwise.
func (c *cmd) open(ctx context.Context, st event.Event, r *result) result {
	if st.Pane != "" {
		return c.focusPane(ctx, st.Pane, r)
	}
	if !background(st) {
		return r.finish(statusRefused, "the session has no tmux pane and cannot be opened", cli.ExitNoMatch)
	}
	argv, env := attachCommand(st)
	r.ev.Text = strings.Join(argv, " ")
	if c.opts.DryRun {
		return r.finish(statusPlanned, "", cli.ExitOK)
	}
	args := []string{"new-window", "-n", st.Job, "-P", "-F", "#{pane_id}"}
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	out, err := c.tmux.Run(ctx, append(append(args, "--"), argv...)...)
	if err != nil {
		// No session to add a window to: a session of its own.
		args[0] = "new-session"
		args = append(args[:1], append([]string{"-d", "-s", "ag-" + st.Job}, args[1:]...)...)
		if out, err = c.tmux.Run(ctx, append(append(args, "--"), argv...)...); err != nil {
			return r.finish(statusError, err.Error(), cli.ExitError)
		}
	}
	return c.focusPane(ctx, strings.TrimSpace(string(out)), r)
}

// focusPane brings pane forward: the client switched to it (--client, the
// one who pressed, else the one used last) when one is attached, else
// selected for the next one.
func (c *cmd) focusPane(ctx context.Context, pane string, r *result) result {
	r.ev.Pane = pane
	if c.opts.DryRun {
		return r.finish(statusPlanned, "", cli.ExitOK)
	}
	sel := []string{"select-window", "-t", pane, ";", "select-pane", "-t", pane}
	sw := []string{"switch-client", "-t", pane, ";"}
	client := c.opts.Client
	if client == "" {
		client = c.userClient(ctx)
	}
	if client != "" {
		sw = []string{"switch-client", "-c", client, "-t", pane, ";"}
	}
	if _, err := c.tmux.Run(ctx, append(sw, sel...)...); err != nil {
		// No client to switch (none attached): select it for the next one.
		if _, err := c.tmux.Run(ctx, sel...); err != nil {
			return r.finish(statusError, err.Error(), cli.ExitError)
		}
	}
	return r.finish(statusSent, "", cli.ExitOK)
}
