package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/notify"
)

const isDarwin = true

// darwinBackend is macOS Notification Center, through terminal-notifier
// (groups: one per session, removable) or osascript (always present, cannot
// retract). The note's text goes in as argv, never into AppleScript source.
type darwinBackend struct {
	name string // terminal-notifier | osascript
	bin  string
}

func newDarwin(name string) (backend, error) {
	bin, err := exec.LookPath(name)
	if err != nil {
		return nil, err
	}
	return &darwinBackend{name: name, bin: bin}, nil
}

func (b *darwinBackend) Name() string { return b.name }

func group(n *notify.Note) string { return "ag-" + event.MakeID(n.Agent, n.Session) }

func (b *darwinBackend) Deliver(ctx context.Context, n *notify.Note) (string, error) {
	var args []string
	if b.name == "terminal-notifier" {
		args = []string{"-title", n.Title, "-subtitle", n.Subtitle, "-message", orSpace(n.Body), "-group", group(n)}
		if n.Urgent {
			args = append(args, "-sound", "default")
		}
	} else {
		args = []string{
			"-e", "on run argv",
			"-e", "display notification (item 3 of argv) with title (item 1 of argv) subtitle (item 2 of argv)",
			"-e", "end run",
			n.Title, n.Subtitle, orSpace(n.Body),
		}
	}
	if out, err := exec.CommandContext(ctx, b.bin, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: %s", err, notify.Line(string(out), 200))
	}
	if b.name == "terminal-notifier" {
		return group(n), nil
	}
	return "shown", nil
}

func (b *darwinBackend) Retract(ctx context.Context, n *notify.Note) (string, error) {
	if b.name != "terminal-notifier" {
		return "", nil
	}
	if err := exec.CommandContext(ctx, b.bin, "-remove", group(n)).Run(); err != nil {
		return "", err
	}
	return group(n), nil
}

func (b *darwinBackend) Close() {}

func orSpace(s string) string {
	if s == "" {
		return " "
	}
	return s
}

// terminalFrontmost reports whether the terminal app ag's agents run in is
// the frontmost application; unknown counts as frontmost, so the tmux check
// alone decides.
func terminalFrontmost(ctx context.Context) bool {
	app := map[string]string{
		"Apple_Terminal": "Terminal", "iTerm.app": "iTerm2", "ghostty": "ghostty",
		"WezTerm": "wezterm-gui", "vscode": "Code", "kitty": "kitty", "Alacritty": "alacritty",
	}[os.Getenv("TERM_PROGRAM")]
	if app == "" {
		return true
	}
	out, err := exec.CommandContext(ctx, "osascript", "-e",
		`tell application "System Events" to get name of first application process whose frontmost is true`).Output()
	if err != nil {
		return true
	}
	return strings.EqualFold(strings.TrimSpace(string(out)), app)
}
