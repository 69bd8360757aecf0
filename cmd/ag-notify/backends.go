package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/agwatch/ag/filters/notify"
)

// backend shows and retracts notifications somewhere. Deliver for a note
// whose session already has one replaces it. The ref names what was shown
// (a D-Bus id, a tty, an HTTP message id); Retract returns "" when there
// was nothing of this session's to take back.
type backend interface {
	Name() string
	Deliver(ctx context.Context, n *notify.Note) (ref string, err error)
	Retract(ctx context.Context, n *notify.Note) (ref string, err error)
	Close()
}

// press is a button or reply from a backend that has them.
type press struct {
	note    *notify.Note
	action  string // provider.ActApprove, ...
	text    string
	backend string
}

type job struct {
	op     notify.Op
	note   *notify.Note
	reason string
}

type result struct {
	job
	backend string
	ref     string
	err     error
}

// worker runs one backend's jobs (each host's in order, the hosts in turn:
// queue), each under a timeout, so a slow or dead backend delays only
// itself.
type worker struct {
	b       backend
	jobs    *queue
	results chan<- result
}

func (w *worker) run(timeout time.Duration) {
	for {
		j, ok := w.jobs.pop()
		if !ok {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		r := result{job: j, backend: w.b.Name()}
		if j.op == notify.Deliver {
			r.ref, r.err = w.b.Deliver(ctx, j.note)
		} else {
			r.ref, r.err = w.b.Retract(ctx, j.note)
		}
		cancel()
		w.results <- r
	}
}

// backends builds the chosen backends. One that cannot start now is
// reported and still kept when it can recover (the bus may come up later);
// auto keeps only what works.
func (c *cmd) backends(ctx context.Context) ([]backend, error) {
	names := slices.Clone(c.opts.Backend)
	if c.opts.Exec != "" && !slices.Contains(names, "exec") {
		names = append(names, "exec")
	}
	if c.opts.Ntfy != "" && !slices.Contains(names, "ntfy") {
		names = append(names, "ntfy")
	}
	if len(names) == 0 {
		names = []string{"auto"}
	}
	if c.web != nil && !slices.Contains(names, "web") {
		names = append(names, "web")
	}
	var out []backend
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		if name == "auto" {
			b, why := c.auto(ctx)
			if b == nil {
				c.prog.Errorf("auto: no notification backend works here (no D-Bus notification server, no tmux server, no terminal); passing events through only")
				continue
			}
			// Said once: where notifications go is no guess for the user.
			c.prog.Errorf("notifying through %s: %s (--backend chooses another)", b.Name(), why)
			if !seen[b.Name()] {
				seen[b.Name()] = true
				out = append(out, b)
			}
			continue
		}
		b, err := c.backend(ctx, name)
		if err != nil {
			var soft *softError
			if !errors.As(err, &soft) {
				return nil, err
			}
			c.prog.Errorf("%s: %v", name, err)
			c.failing[name] = soft.err.Error()
		}
		if b != nil {
			out = append(out, b)
		}
	}
	return out, nil
}

// softError is a backend that could not start but may later; it is kept.
type softError struct{ err error }

func (e *softError) Error() string { return e.err.Error() }
func (e *softError) Unwrap() error { return e.err }

func (c *cmd) backend(ctx context.Context, name string) (backend, error) {
	switch name {
	case "dbus":
		return newDBus(ctx, c.env, c.presses)
	case "tmux":
		b := &tmuxBackend{tmux: c.tmux}
		if c.opts.TmuxPopup {
			p, err := newPopups(c.tmux, c.presses, c.self)
			if err != nil {
				return nil, fmt.Errorf("--tmux-popup: %w", err)
			}
			b.popup = p
		}
		return b, nil
	case "osc":
		return newOSC(c.tmux, c.opts.OSC, c.opts.OSCTTY, c.env), nil
	case "exec":
		if c.opts.Exec == "" {
			return nil, fmt.Errorf("--backend exec needs --exec CMD")
		}
		return &execBackend{command: c.opts.Exec, stderr: c.prog.Stderr}, nil
	case "ntfy":
		if c.opts.Ntfy == "" {
			return nil, fmt.Errorf("--backend ntfy needs --ntfy URL")
		}
		return newNtfy(c.opts.Ntfy, c.opts.NtfyToken, c.opts.NtfyClick, c.ntfyButtons())
	case "osascript", "terminal-notifier":
		return newDarwin(name)
	case "web":
		if c.web == nil {
			return nil, fmt.Errorf("--backend web needs --web ADDR")
		}
		return &webBackend{s: c.web}, nil
	}
	return nil, fmt.Errorf("unknown backend %q (want auto, dbus, tmux, osc, exec, ntfy, osascript or terminal-notifier)", name)
}

// auto picks the first backend that works here, each probed briefly, and
// says why: on macOS terminal-notifier, then osascript; D-Bus with a
// notification server; a tmux server, with the popup, whose keys answer
// the agent (inside tmux, OSC 9 to the client's terminal is often
// swallowed by it); else OSC when there is a terminal to write to.
func (c *cmd) auto(ctx context.Context) (backend, string) {
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if isDarwin {
		for _, name := range []string{"terminal-notifier", "osascript"} {
			if _, err := exec.LookPath(name); err == nil {
				if b, err := newDarwin(name); err == nil {
					return b, "macOS notifications"
				}
			}
		}
	}
	b, err := newDBus(pctx, c.env, c.presses)
	if err == nil {
		return b, "a desktop notification server answers on D-Bus"
	} else if b != nil {
		b.Close()
	}
	nodbus := "no desktop notification server on D-Bus (" + err.Error() + ")"
	if _, err := c.tmux.Run(pctx, "list-sessions"); err == nil {
		tb, err := c.backend(ctx, "tmux")
		if t, ok := tb.(*tmuxBackend); ok && err == nil && t.popup == nil {
			if t.popup, err = newPopups(c.tmux, c.presses, c.self); err != nil {
				return t, nodbus + "; a tmux server runs: messages on its status line (no popup: " + err.Error() + ")"
			}
		}
		if err == nil {
			return tb, nodbus + "; a tmux server runs: a popup on the pane's clients, whose keys answer the agent"
		}
	}
	if c.opts.OSCTTY != "" || ttyWritable() {
		return newOSC(c.tmux, c.opts.OSC, c.opts.OSCTTY, c.env), nodbus + " and no tmux server; OSC 9 to the terminal"
	}
	return nil, ""
}

// ttyWritable reports whether ag-notify has a controlling terminal.
func ttyWritable() bool {
	f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
