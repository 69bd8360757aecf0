package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/tmux"
)

// oscBackend writes a terminal notification sequence. Where it writes:
// --osc-tty when given; else the ttys of the tmux clients attached to the
// pane's session (the real terminals, so no passthrough is needed unless
// that client itself runs inside tmux or screen); else the agent's own tty,
// wrapped for tmux passthrough when the agent runs in a pane (needs tmux's
// allow-passthrough on).
type oscBackend struct {
	tmux *tmux.Client
	kind string // auto, 9, 777, 99
	tty  string
	env  func(string) string
}

func newOSC(t *tmux.Client, kind, tty string, env func(string) string) *oscBackend {
	return &oscBackend{tmux: t, kind: kind, tty: tty, env: env}
}

func (b *oscBackend) Name() string { return "osc" }

// target is one terminal to write to.
type target struct {
	path string
	term string // the terminal's $TERM-like name, for auto
	wrap bool   // inside tmux/screen: DCS passthrough
}

func (b *oscBackend) targets(ctx context.Context, n *notify.Note) []target {
	if b.tty != "" {
		return []target{{path: b.tty, term: b.env("TERM"), wrap: b.env("TMUX") != ""}}
	}
	if n.Pane != "" || n.Remote {
		if lines, err := paneClients(ctx, b.tmux, localPane(n), "#{client_tty}\t#{client_termname}"); err == nil && len(lines) > 0 {
			var ts []target
			for _, l := range lines {
				path, term, _ := strings.Cut(l, "\t")
				nested := strings.HasPrefix(term, "tmux") || strings.HasPrefix(term, "screen")
				ts = append(ts, target{path: path, term: term, wrap: nested})
			}
			return ts
		}
	}
	if n.TTY != "" && strings.HasPrefix(n.TTY, "/dev/") && !n.Remote {
		return []target{{path: n.TTY, term: b.env("TERM"), wrap: n.Pane != ""}}
	}
	return nil
}

func (b *oscBackend) Deliver(ctx context.Context, n *notify.Note) (string, error) {
	return b.write(ctx, n, false)
}

// Retract closes a kitty (OSC 99) notification; 9 and 777 have no close.
func (b *oscBackend) Retract(ctx context.Context, n *notify.Note) (string, error) {
	return b.write(ctx, n, true)
}

func (b *oscBackend) write(ctx context.Context, n *notify.Note, retract bool) (string, error) {
	ts := b.targets(ctx, n)
	if len(ts) == 0 {
		if retract {
			return "", nil
		}
		return "", errors.New("no terminal to write to (no tmux client for the pane, no tty; see --osc-tty)")
	}
	var done []string
	var errs []error
	for _, t := range ts {
		kind := b.kind
		if kind == "auto" || kind == "" {
			kind = "9"
			if strings.Contains(t.term, "kitty") {
				kind = "99"
			}
		}
		var seq string
		if retract {
			if kind != "99" {
				continue
			}
			seq = osc99Close(n)
		} else {
			seq = oscSeq(kind, n)
		}
		if t.wrap {
			seq = passthrough(seq)
		}
		if err := writeTTY(t.path, seq); err != nil {
			errs = append(errs, err)
			continue
		}
		done = append(done, t.path)
	}
	if len(done) == 0 && len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	return strings.Join(done, ","), nil
}

// oscSeq is the notification as one escape sequence. The note's text is
// already free of control characters (notify.Clean), so it cannot end the
// sequence early or smuggle another one in.
func oscSeq(kind string, n *notify.Note) string {
	body := n.Subtitle
	if b := notify.Line(n.Body, 0); b != "" {
		body += ": " + b
	}
	switch kind {
	case "777": // urxvt, foot, Ghostty, WezTerm: notify;title;body
		title := strings.ReplaceAll(n.Title, ";", ",")
		return "\x1b]777;notify;" + title + ";" + body + "\x07"
	case "99": // kitty: title then body, one id, so it can be closed
		id := osc99ID(n)
		return "\x1b]99;i=" + id + ":d=0:p=title;" + n.Title + "\x1b\\" +
			"\x1b]99;i=" + id + ":d=1:p=body;" + body + "\x1b\\"
	default: // 9: iTerm2, WezTerm, Ghostty, Windows Terminal
		return "\x1b]9;" + n.Title + " — " + body + "\x07"
	}
}

func osc99Close(n *notify.Note) string {
	return "\x1b]99;i=" + osc99ID(n) + ":p=close;\x1b\\"
}

// osc99ID is one id per session, from the characters kitty allows.
func osc99ID(n *notify.Note) string { return "ag-" + event.MakeID(n.Agent, n.Session) }

// passthrough wraps seq so tmux hands it to the outer terminal: DCS
// tmux; ... ST with every ESC doubled.
func passthrough(seq string) string {
	return "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
}

// writeTTY writes seq in one write. O_NOCTTY: never become the terminal's
// controlling process; O_APPEND so a regular file (tests) is not clobbered;
// O_NONBLOCK so a FIFO at path cannot hold the backend in open(2) (and
// with it ag-notify's exit), and a terminal or a file it must be.
func writeTTY(path, seq string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 && !fi.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("%s: not a terminal", path)
	}
	_, werr := f.WriteString(seq)
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("%s: %w", path, werr)
	}
	return cerr
}

func (b *oscBackend) Close() {}
