package main

import (
	"bytes"
	"errors"
	"strings"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/glance"
	"github.com/agwatch/ag/filters/hostname"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/filters/tmpl"
	"github.com/agwatch/ag/providers"
)

// defaultFormat gives "claude ⏳ Bash", "claude ❓", "claude ⚙", "claude"
// ("claude@devbox ⏳ Bash" where the state file holds more than one host's
// sessions for the pane id). defaultSegment writes the same without
// parsing it on every prompt.
const defaultFormat = `{{.Who}}{{with .Icon}} {{.}}{{end}}{{with .Detail}} {{.}}{{end}}`

func defaultSegment(b *bytes.Buffer, d *segmentData) {
	b.WriteString(d.Who)
	for _, s := range []string{d.Icon, d.Detail} {
		if s != "" {
			b.WriteByte(' ')
			b.WriteString(s)
		}
	}
}

// toolChars bounds the tool the default segment names: a prompt has room
// for "Bash", not for a name written to fill it.
const toolChars = 40

// segmentData is what a --format template sees: the state event's fields,
// plus Icon for the status, Detail (the tool a permission wait is for) and
// Who (the agent, "@host" added where more than one host is present).
type segmentData struct {
	event.Event
	Icon   string
	Detail string
	Who    string
}

// segment is --pane: the fast path a prompt or status line runs. It reads
// $TMUX_PANE and the state file, and nothing else: no tmux, no /proc.
func (d *detector) segment(pane string) int {
	var t *tmpl.Template // nil: the default format, written by hand
	if d.opts.Format != "" {
		var err error
		if t, err = tmpl.New("segment").Option("missingkey=zero").Parse(d.opts.Format); err == nil {
			err = t.CheckFields(segmentData{})
		}
		if err != nil {
			d.prog.Errorf("--format: %v", err)
			return cli.ExitError
		}
	}
	if pane == "" {
		pane = d.getenv("TMUX_PANE")
	}
	if pane == "" {
		return cli.ExitOK // not in tmux: no pane, no segment
	}
	path := d.opts.State
	if path == "" {
		path = paths.StateFile(d.getenv)
	}
	// Only the lines naming the pane are decoded: a prompt should not
	// decode every session of the machine to show one.
	states, err := state.ReadFor(path, []byte(`"pane":"`+pane+`"`))
	if errors.Is(err, state.ErrNoFile) {
		return cli.ExitOK
	}
	if err != nil {
		d.prog.Errorf("%s: %v", path, err)
		return cli.ExitError
	}
	// This host's pane: another host's %3 (a workstation's merged file)
	// is a pane over there.
	self := hostname.Of(d.getenv)
	st, ok := state.ForPaneOf(state.Local(states, self.Is), pane, providers.ManySessionsPerProcess)
	if !ok || st.Status == event.StatusGone || st.Status == "" {
		return cli.ExitOK // its process is gone too: nothing to show
	}
	// What the agent, its model or another host wrote is printed only
	// made safe: no escape sequence reaches the terminal, no # a tmux
	// format would read (--for-tmux).
	clean := func(s string) string { return safetext.Line(s, safetext.FieldChars) }
	if d.opts.ForTmux {
		clean = func(s string) string { return safetext.Tmux(s, safetext.FieldChars) }
	}
	view := safetext.Fields(&st, clean)
	data := segmentData{Event: view, Icon: glance.Icon(st.Status, st.Attention)}
	data.Who = glance.Who(&view, glance.Hosts(states, self))
	switch {
	case st.Stale != "":
		// Nobody keeps the state current: the agent is there, what it
		// does is not known.
		data.Icon = glance.StaleIcon
	case glance.Unread(&st):
		data.Icon = glance.UnreadIcon
	case st.Status == event.StatusWaiting && (st.Attention == event.AttnPermission || st.Attention == ""):
		data.Detail = clean(safetext.Cut(st.Tool, toolChars))
	}
	var b bytes.Buffer
	if t == nil {
		defaultSegment(&b, &data)
	} else if err := t.Execute(&b, data); err != nil {
		d.prog.Errorf("--format: %v", err)
		return cli.ExitError
	}
	line := strings.TrimRight(b.String(), "\n")
	if line == "" {
		return cli.ExitOK
	}
	if _, err := d.stdout.Write([]byte(line + "\n")); err != nil && !cli.IsClosedPipe(err) {
		d.prog.Errorf("%v", err)
		return cli.ExitError
	}
	return cli.ExitOK
}
