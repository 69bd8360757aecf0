package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/glance"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/filters/tmpl"
	"github.com/agwatch/ag/filters/tmux"
)

// glanceOptions are --snapshot's one-line form; options embeds them.
type glanceOptions struct {
	Table  bool   `long:"table" description:"with --snapshot: a table for people, most urgent first, fitted to the terminal"`
	Format string `long:"format" value-name:"TEMPLATE" unquote:"false" description:"with --snapshot: print one line for all sessions from a Go template: .Summary (\"⏳2 ✓1\"), .Waiting .Failed .Working .Done .Idle .Total (counts of live sessions), .Sessions (the states), .Hosts (states of more than one host: .Summary is then per host); nothing at all when the line is empty"`
}

// glanceData is what a --format template sees.
type glanceData struct {
	glance.Counts
	Summary  string
	Sessions []event.Event
	// Hosts: the states come from more than one host, and Summary is per
	// host ("laptop ⏳1 · devbox ✓2").
	Hosts bool
}

// glance is --snapshot with --format or --tmux: a prompt segment for every
// agent at once, and the one-shot push the tmux plugin runs when tmux
// starts. It is quiet where a prompt runs it: no state file is exit 1 and
// no message.
func (f *folder) glance(ctx context.Context, stdin io.Reader, g glanceOptions, to tmuxOptions) int {
	var t *tmpl.Template
	if g.Format != "" {
		var err error
		if t, err = tmpl.New("format").Option("missingkey=zero").Parse(g.Format); err != nil {
			f.prog.Errorf("--format: %v", err)
			return cli.ExitError
		}
	}
	states, code := f.loadStates(ctx, stdin)
	if code != cli.ExitOK {
		return code
	}
	if to.Push {
		socket, name := to.Server()
		p := newPusher(&tmux.Client{Socket: socket, Name: name}, hostname.Of(f.env), f.prog.Errorf, f.now)
		p.update(states)
		if !p.sync(ctx) {
			code = cli.ExitError
		}
	}
	if t == nil {
		return code
	}
	live := states[:0:0]
	for _, s := range states {
		if s.Status != event.StatusGone {
			live = append(live, s)
		}
	}
	self := hostname.Of(f.env)
	d := glanceData{Counts: glance.Count(live), Sessions: live, Hosts: glance.Hosts(live, self)}
	d.Summary = glance.HostSummary(live, self)
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		f.prog.Errorf("--format: %v", err)
		return cli.ExitError
	}
	line := strings.TrimRight(b.String(), "\n")
	if line == "" {
		return code
	}
	if _, err := io.WriteString(f.prog.Stdout, line+"\n"); err != nil && !cli.IsClosedPipe(err) {
		f.prog.Errorf("%v", err)
		return cli.ExitError
	}
	return code
}

// loadStates folds stdin when it has data, else reads the state file.
func (f *folder) loadStates(ctx context.Context, stdin io.Reader) ([]event.Event, int) {
	in, fromStdin := stdinData(stdin)
	if !fromStdin {
		states, err := state.Read(f.path)
		switch {
		case errors.Is(err, state.ErrNoFile):
			return nil, cli.ExitNoMatch
		case err != nil:
			f.prog.Errorf("%s: %v", f.path, err)
			return nil, cli.ExitError
		}
		return states, cli.ExitOK
	}
	r := f.prog.NewReader(in, "<stdin>")
	var e event.Event
	for ctx.Err() == nil {
		if _, err := r.Next(&e); err != nil {
			if !errors.Is(err, io.EOF) {
				f.prog.Errorf("<stdin>: %v", err)
				return nil, cli.ExitError
			}
			break
		}
		f.fold.Apply(&e)
	}
	if ctx.Err() != nil {
		return nil, cli.ExitInterrupted
	}
	f.settle()
	return f.fold.States(), cli.ExitOK
}
