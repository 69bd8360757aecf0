package fold

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// t0 is the start of every test's timeline; at(s) is s seconds after it.
var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// opt edits an event being built by ev.
type opt func(*event.Event)

func run(r string) opt      { return func(e *event.Event) { e.Run = r } }
func tool(t, id string) opt { return func(e *event.Event) { e.Tool, e.ToolID = t, id } }
func attn(a string) opt     { return func(e *event.Event) { e.Attention = a } }
func text(s string) opt     { return func(e *event.Event) { e.Text = s } }
func reason(s string) opt   { return func(e *event.Event) { e.Reason = s } }
func sub(s string) opt      { return func(e *event.Event) { e.Sub = s } }
func pending(n int) opt     { return func(e *event.Event) { e.Pending = n } }
func pane(p string) opt     { return func(e *event.Event) { e.Pane = p } }
func pid(n int) opt         { return func(e *event.Event) { e.PID = n } }
func sess(s string) opt     { return func(e *event.Event) { e.Session = s } }
func agent(a string) opt    { return func(e *event.Event) { e.Agent = a } }
func id(s string) opt       { return func(e *event.Event) { e.ID = s } }
func branch(b string) opt   { return func(e *event.Event) { e.Branch = b } }
func model(m string) opt    { return func(e *event.Event) { e.Model = m } }
func cwd(d string) opt      { return func(e *event.Event) { e.Cwd = d } }
func tty(d string) opt      { return func(e *event.Event) { e.TTY = d } }
func toks(in, out int64) opt {
	return func(e *event.Event) { e.Tokens = &event.Tokens{In: in, Out: out} }
}
func cost(c float64) opt { return func(e *event.Event) { e.CostUSD = &c } }
func ctxw(used, size int64) opt {
	return func(e *event.Event) { e.Context = &event.Context{Used: used, Size: size} }
}

// ev builds one observation of session "s1" by claude at second sec. Its
// id is unique unless an opt sets one.
func ev(kind, src string, sec float64, opts ...opt) *event.Event {
	e := event.New(kind, at(sec), "claude", "s1")
	e.Src = src
	e.ID = kind + "/" + src + "/" + strconv.FormatFloat(sec, 'f', -1, 64)
	for _, o := range opts {
		o(&e)
	}
	return &e
}

// folder runs events through a fresh Folder with the default windows.
type folder struct {
	t *testing.T
	*Folder
	last map[string]event.Event // newest state per session key
	all  []event.Event
}

func newFolder(t *testing.T) *folder {
	return &folder{t: t, Folder: New(Config{}), last: map[string]event.Event{}}
}

// restore has f take the states from's saves, as the state file carries
// them (encoded and read back): a restarted ag-fold.
func (f *folder) restore(from *Folder) {
	f.t.Helper()
	for _, st := range from.Saved() {
		var e event.Event
		if err := event.Decode(event.AppendJSON(nil, &st), &e); err != nil {
			f.t.Fatal(err)
		}
		f.Apply(&e)
	}
}

func (f *folder) apply(es ...*event.Event) []event.Event {
	var out []event.Event
	for _, e := range es {
		for _, s := range f.Apply(e) {
			f.check(s)
			out = append(out, s)
		}
	}
	return out
}

func (f *folder) tick(sec float64) []event.Event {
	var out []event.Event
	for _, s := range f.Tick(at(sec)) {
		f.check(s)
		out = append(out, s)
	}
	return out
}

// check asserts what holds for every state event: its token, monotonic
// since and gen, attention exactly while waiting.
func (f *folder) check(s event.Event) {
	f.t.Helper()
	if s.Host != "" {
		// Another host's state, passed on as it came: only its status
		// is vouched for.
		if !known(s.Status) || s.Kind != event.State {
			f.t.Fatalf("another host's state passed on with status %q: %s", s.Status, event.Marshal(&s))
		}
		return
	}
	if err := invariants(s, f.last[s.Agent+"/"+s.Session+"/"+s.Pane]); err != nil {
		f.t.Fatalf("%v\nstate: %s", err, event.Marshal(&s))
	}
	f.last[s.Agent+"/"+s.Session+"/"+s.Pane] = s
	f.all = append(f.all, s)
}

func invariants(s, prev event.Event) error {
	switch s.Status {
	case event.StatusIdle, event.StatusWorking, event.StatusWaiting, event.StatusDone, event.StatusFailed, event.StatusGone:
	default:
		return fmt.Errorf("bad status %q", s.Status)
	}
	if s.Kind != event.State || s.Src != event.SrcFold || s.V != event.Version || s.ID == "" {
		return fmt.Errorf("not a state event")
	}
	if (s.Status == event.StatusWaiting) != (s.Attention != "") {
		return fmt.Errorf("attention %q with status %q", s.Attention, s.Status)
	}
	if s.Since == nil {
		return fmt.Errorf("no since")
	}
	if want := strconv.FormatInt(s.Since.UnixMilli(), 10) + "." + strconv.FormatInt(s.Gen, 10); s.Token != want {
		return fmt.Errorf("token %q, want %q", s.Token, want)
	}
	if s.Pending < 0 || (s.Pending > 0 && s.Status != event.StatusWorking) {
		return fmt.Errorf("pending %d with status %s", s.Pending, s.Status)
	}
	if prev.Kind == "" || prev.Status == event.StatusGone && s.Reason == "superseded" {
		return nil
	}
	if s.Gen < prev.Gen {
		return fmt.Errorf("gen went back %d → %d", prev.Gen, s.Gen)
	}
	if s.Since.Before(prev.Since.Time) {
		return fmt.Errorf("since went back %s → %s", prev.Since, s.Since)
	}
	if s.Status != prev.Status && s.Gen == prev.Gen {
		return fmt.Errorf("status %s → %s without a gen bump", prev.Status, s.Status)
	}
	if (s.Attention != prev.Attention || s.Tool != prev.Tool) && s.Gen == prev.Gen {
		return fmt.Errorf("attention/tool changed without a gen bump")
	}
	if s.Status == prev.Status && !s.Since.Equal(prev.Since.Time) {
		return fmt.Errorf("since moved without a status edge")
	}
	return nil
}

// state is the current state of claude session s1.
func (f *folder) state() event.Event {
	f.t.Helper()
	for _, s := range f.States() {
		if s.Agent == "claude" && s.Session == "s1" {
			return s
		}
	}
	f.t.Fatal("no state for claude/s1")
	return event.Event{}
}
