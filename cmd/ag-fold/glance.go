package main

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/glance"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/filters/tmpl"
	"github.com/agwatch/ag/filters/tmux"
)

// glanceOptions are --snapshot's one-line form; options embeds them.
type glanceOptions struct {
	Table  bool   `long:"table" description:"with --snapshot: a table for people, most urgent first" man:"fitted to the terminal, coloured only on one (NO_COLOR, TERM=dumb: never)"`
	Format string `long:"format" value-name:"TEMPLATE" unquote:"false" description:"with --snapshot: one line for all sessions" man:"a Go template (see TEMPLATES); nothing at all when the line is empty"`
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
		if t, err = tmpl.New("format").Option("missingkey=zero").Parse(g.Format); err == nil {
			err = t.CheckFields(glanceData{})
		}
		if err != nil {
			f.prog.Errorf("--format: %v", err)
			return cli.ExitError
		}
	}
	src, code := f.load(ctx, stdin, true)
	if code != cli.ExitOK {
		return code
	}
	states := src.states
	if to.Push {
		// tmux shows what a running ag-fold keeps: from a state file left
		// behind nothing is pushed, and what the dead run left is cleared.
		current := states
		if !src.kept {
			current = nil
		}
		socket, name := to.Server()
		p := newPusher(&tmux.Client{Socket: socket, Name: name}, hostname.Of(f.env), f.prog.Errorf, f.now)
		p.dirty = true // list the panes even with no state: leftovers go
		p.update(current)
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
	d := glanceData{Counts: glance.Count(live), Hosts: glance.Hosts(live, self)}
	d.Summary = safetext.Line(glance.HostSummary(live, self), 0)
	// A template may print any field: what agents and hosts wrote goes
	// through made safe for a terminal.
	d.Sessions = make([]event.Event, len(live))
	for i := range live {
		d.Sessions[i] = safetext.Fields(&live[i], lineField)
	}
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

func lineField(s string) string { return safetext.Line(s, safetext.FieldChars) }
