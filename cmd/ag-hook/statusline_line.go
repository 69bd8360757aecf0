package main

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/glance"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/filters/tmpl"
	"github.com/agwatch/ag/providers/claude/claudehook"
)

// defaultFormat is ag's statusLine: model · context left · cost · limits ·
// other agents waiting, each part only when known.
const defaultFormat = `{{.Model}}` +
	`{{with .Left}} · {{.}}% context left{{end}}` +
	`{{with .Cost}} · {{usd .}}{{end}}` +
	`{{range .Limits}} · {{.Window}} {{pct .UsedPct}}{{end}}` +
	`{{with .Waiting}} · {{.}} waiting{{end}}`

// lineData is what a --format template sees.
type lineData struct {
	Model      string // display name, else id, else "Claude"
	ModelID    string
	Session    string
	Cwd        string
	Dir        string
	ProjectDir string
	Version    string
	Transcript string
	Cost       *float64
	Context    *event.Context
	Left       *int
	Limits     []event.Limit

	others  func() []event.Event
	loaded  bool
	waiting []event.Event
}

// Others are the other sessions waiting for the user (ag-fold's state
// file), read on first use only.
func (d *lineData) Others() []event.Event {
	if !d.loaded {
		d.loaded, d.waiting = true, d.others()
	}
	return d.waiting
}

// Waiting counts Others.
func (d *lineData) Waiting() int { return len(d.Others()) }

// TemplateField offers Others and Waiting to --format templates: ag's
// template engine calls no methods (see filters/tmpl).
func (d *lineData) TemplateField(name string) (any, bool) {
	switch name {
	case "Others":
		return d.Others(), true
	case "Waiting":
		return d.Waiting(), true
	}
	return nil, false
}

// TemplateFields names TemplateField's fields, for error messages.
func (d *lineData) TemplateFields() []string { return []string{"Others", "Waiting"} }

// field is one text of the payload or the state file as the line shows it.
func field(s string) string { return safetext.Line(s, safetext.FieldChars) }

// usd: 1.6712 → "$1.67", as the table and every view write a cost.
func usd(v float64) string { return glance.USD(v) }

// pct: 23.4 → "23%".
func pct(v float64) string { return strconv.Itoa(int(math.Round(v))) + "%" }

// lineFuncs are the functions a line template may call (a function, not a
// map variable: a hook run must not build it at start-up).
func lineFuncs() tmpl.FuncMap {
	return tmpl.FuncMap{
		"usd": usd,
		"pct": pct,
		// si: 12419 → "12.4k", 1000000 → "1M".
		"si": func(v int64) string {
			switch a := math.Abs(float64(v)); {
			case a >= 1e6:
				return trimZero(strconv.FormatFloat(float64(v)/1e6, 'f', 1, 64)) + "M"
			case a >= 1e3:
				return trimZero(strconv.FormatFloat(float64(v)/1e3, 'f', 1, 64)) + "k"
			}
			return strconv.FormatInt(v, 10)
		},
		// until: a reset time → "2h10m" from now ("0m" once past).
		"until": func(t *event.Time) string {
			if t == nil {
				return ""
			}
			d := max(0, time.Until(t.Time)).Round(time.Minute)
			h, m := int(d.Hours()), int(d.Minutes())%60
			switch {
			case h >= 48:
				return strconv.Itoa(h/24) + "d" + strconv.Itoa(h%24) + "h"
			case h > 0:
				return strconv.Itoa(h) + "h" + strconv.Itoa(m) + "m"
			}
			return strconv.Itoa(m) + "m"
		},
		"base": filepath.Base,
	}
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// renderLine is ag's own line for st, one trailing newline. A template
// that does not parse or run is reported on stderr and the default used.
func (c *cmd) renderLine(format string, st *claudehook.Status) []byte {
	// Claude prints the line as it is: what its payload carries (a model's
	// display name, a path) is made safe for a terminal first.
	d := &lineData{
		Model: field(st.ModelName), ModelID: field(st.ModelID), Session: field(st.Session), Cwd: field(st.Cwd),
		ProjectDir: field(st.ProjectDir), Version: field(st.Version), Transcript: field(st.Transcript),
		Cost: st.CostUSD, Context: st.Context, Limits: st.Limits,
	}
	if len(d.Limits) > 0 {
		d.Limits = slices.Clone(d.Limits)
		for i := range d.Limits {
			d.Limits[i].Window = field(d.Limits[i].Window)
		}
	}
	if d.Model == "" {
		d.Model = d.ModelID
	}
	if d.Model == "" && st.Agent == claudehook.ID {
		d.Model = "Claude"
	}
	if d.Model == "" {
		d.Model = field(st.Agent)
	}
	if d.Cwd != "" {
		d.Dir = filepath.Base(d.Cwd)
	}
	if st.Context != nil {
		d.Left = st.Context.LeftPct
	}
	d.others = func() []event.Event {
		others := c.waitingOthers(st.Agent, st.Session)
		for i := range others {
			others[i] = safetext.Fields(&others[i], field)
		}
		return others
	}
	if format != "" {
		out, err := execLine(format, d)
		if err == nil {
			return out
		}
		c.errorf("statusline: --format: %v (using the default line)", err)
	}
	return defaultLine(d)
}

// defaultLine is defaultFormat written out in Go: a template parsed in a
// cold process costs more than the rest of the line together.
// TestDefaultLine keeps the two the same.
func defaultLine(d *lineData) []byte {
	b := []byte(d.Model)
	if d.Left != nil {
		b = append(b, " · "...)
		b = strconv.AppendInt(b, int64(*d.Left), 10)
		b = append(b, "% context left"...)
	}
	if d.Cost != nil {
		b = append(b, " · "+usd(*d.Cost)...)
	}
	for _, l := range d.Limits {
		b = append(b, " · "+l.Window+" "+pct(l.UsedPct)...)
	}
	if n := d.Waiting(); n > 0 {
		b = append(b, " · "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, " waiting"...)
	}
	return append(b, '\n')
}

func execLine(format string, d *lineData) ([]byte, error) {
	t, err := tmpl.New("line").Funcs(lineFuncs()).Option("missingkey=zero").Parse(format)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return nil, err
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	return append(out, '\n'), nil
}

// waitingOthers are the sessions in ag-fold's state file waiting for the
// user, this one (agent's session self) excepted. No state file, or one no
// running ag-fold keeps, is none.
func (c *cmd) waitingOthers(agent, self string) []event.Event {
	states, err := state.Read(paths.StateFile(c.env))
	if err != nil && err != state.ErrNoFile {
		c.debugf("statusline: state file: %v", err)
	}
	var out []event.Event
	for _, s := range states {
		// A stale wait (no ag-fold keeps the file) is not counted: it may
		// have been answered long ago.
		if s.Status == event.StatusWaiting && s.Stale == "" && !(s.Agent == agent && s.Session == self) {
			out = append(out, s)
		}
	}
	return out
}
