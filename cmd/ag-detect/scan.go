package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/proc"
	"github.com/agwatch/ag/filters/tmux"
)

// paneFormat is what list-panes tells per pane, space separated: a tab
// would come back as "_" from a tmux client without a UTF-8 locale (cron,
// systemd). The path goes last as the only field that may hold a space.
const paneFormat = "#{pane_id} #{pane_pid} #{pane_tty} #{window_activity} #{pane_current_path}"

// sighting is an agent seen in a pane.
type sighting struct {
	pane     string
	panePID  int
	tty      string
	activity int64  // window_activity, unix seconds
	cwd      string // the agent's, else the pane's
	found    proc.Found
	start    uint64 // with the pid, the process's identity
	// job and viewed are the background session the process shows, when
	// it is a viewer (`claude attach <job>`); it may exec into another
	// program in place (the agent view), which ends the viewing.
	job, viewed string
}

func (s sighting) same(o sighting) bool {
	return s.found.PID == o.found.PID && s.start == o.start && s.found.Agent == o.found.Agent && s.job == o.job
}

// scanner looks at every pane, once or on a timer.
type scanner struct {
	d       *detector
	rules   *rules
	info    proc.Info
	tm      paneIO             // tmux: a process per command, or a control client's
	screens map[string]*screen // --panes: what each pane showed last
}

// paneIO is what the scanner asks tmux: *tmux.Client runs a process per
// call, *tmux.Control asks through a control client.
type paneIO interface {
	ListPanes(ctx context.Context, format string) ([]string, error)
	Capture(ctx context.Context, target string, history int) (string, error)
	Display(ctx context.Context, target, format string) (string, error)
}

func newScanner(d *detector) *scanner {
	return &scanner{d: d, rules: defaultRules(), tm: d.tmux, screens: map[string]*screen{}}
}

// scan lists the panes and finds the agent in each.
func (s *scanner) scan(ctx context.Context) ([]sighting, error) {
	lines, err := s.tm.ListPanes(ctx, paneFormat)
	if err != nil {
		// Whatever list-panes says (no server, connection refused, "server
		// exited unexpectedly"), there is no server to answer: an error,
		// never an empty list.
		var te *tmux.Error
		if errors.As(err, &te) && strings.TrimSpace(te.Stderr) != "" {
			return nil, fmt.Errorf("cannot reach the tmux server: %s", strings.TrimSpace(te.Stderr))
		}
		return nil, fmt.Errorf("cannot reach the tmux server: %w", err)
	}
	table, err := proc.Snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("process table: %w", err)
	}
	info := s.info
	if info == nil {
		info = proc.System{Ctx: ctx}
	}
	f := s.rules.finder(table, info)
	var out []sighting
	for _, l := range lines {
		p := strings.SplitN(l, " ", 5)
		if len(p) < 5 {
			continue
		}
		pid, err := strconv.Atoi(p[1])
		if err != nil || pid <= 0 {
			continue
		}
		found, ok := f.InTerminal(pid)
		if !ok {
			continue
		}
		act, _ := strconv.ParseInt(p[3], 10, 64)
		sg := sighting{pane: p[0], panePID: pid, tty: p[2], activity: act, cwd: info.Cwd(found.PID), found: found}
		if sg.cwd == "" {
			sg.cwd = p[4]
		}
		if pr, ok := table.Get(found.PID); ok {
			sg.start = pr.Start
		}
		sg.job, sg.viewed = s.rules.viewer(found.Agent, found.Argv, func() []string { return info.Env(found.PID) })
		out = append(out, sg)
	}
	return out, nil
}

// once is --all and/or --panes without --watch.
func (s *scanner) once(ctx context.Context) int {
	seen, err := s.scan(ctx)
	if err != nil {
		s.d.prog.Errorf("%v", err)
		return cli.ExitError
	}
	for _, sg := range seen {
		if s.d.opts.All {
			if err := s.emit(s.procEvent(event.ProcUp, sg, time.Time{})); err != nil {
				return s.writeErr(err)
			}
		}
		if s.d.opts.Panes {
			if err := s.classify(ctx, sg, false); err != nil {
				return s.writeErr(err)
			}
		}
	}
	return cli.ExitOK
}

// watchGrace is how long every scan must fail before --watch takes the
// server as gone.
const watchGrace = 2 * time.Second

// watch repeats scan and writes the differences (a tmux before 3.2, which
// cannot be followed). It returns when the server is gone (true: its
// agents said gone), or with how it ended.
func (s *scanner) watch(ctx context.Context) (int, bool) {
	up := map[string]sighting{} // by pane
	tick := time.NewTicker(s.d.opts.Interval)
	defer tick.Stop()
	var failing time.Time // since when every scan failed
	for {
		seen, err := s.scan(ctx)
		if ctx.Err() != nil {
			return cli.ExitInterrupted, false
		}
		if err != nil && (failing.IsZero() || time.Since(failing) < watchGrace) {
			// One tmux call that fails (a busy server, a client that
			// could not connect at once) is no server gone: the watch
			// would end for good and nothing says so in the pipeline.
			// What it knew stands until a scan works again.
			if failing.IsZero() {
				failing = time.Now()
			}
			select {
			case <-ctx.Done():
				return cli.ExitInterrupted, false
			case <-tick.C:
			}
			continue
		}
		if err != nil {
			// The server went away: its agents are gone from view.
			if s.d.opts.All {
				for _, old := range up {
					if werr := s.emit(s.procEvent(event.ProcDown, old, s.d.now())); werr != nil {
						return s.writeErr(werr), false
					}
				}
			}
			return cli.ExitOK, true
		}
		failing = time.Time{}
		now := map[string]sighting{}
		for _, sg := range seen {
			now[sg.pane] = sg
		}
		if s.d.opts.All {
			if err := s.diff(up, now); err != nil {
				return s.writeErr(err), false
			}
		}
		up = now
		if s.d.opts.Panes {
			for pane := range s.screens {
				if _, ok := now[pane]; !ok {
					delete(s.screens, pane)
				}
			}
			for _, sg := range seen {
				if err := s.classify(ctx, sg, false); err != nil {
					return s.writeErr(err), false
				}
			}
		}
		select {
		case <-ctx.Done():
			return cli.ExitInterrupted, false
		case <-tick.C:
		}
	}
}

// diff writes proc.down for agents no longer seen and proc.up for new ones,
// downs first so a pane whose agent was replaced reads in order.
func (s *scanner) diff(before, after map[string]sighting) error {
	for _, pane := range sortedKeys(before) {
		old := before[pane]
		if cur, ok := after[pane]; !ok || !cur.same(old) {
			if err := s.emit(s.procEvent(event.ProcDown, old, s.d.now())); err != nil {
				return err
			}
		}
	}
	for _, pane := range sortedKeys(after) {
		cur := after[pane]
		if old, ok := before[pane]; !ok || !cur.same(old) {
			if err := s.emit(s.procEvent(event.ProcUp, cur, time.Time{})); err != nil {
				return err
			}
		}
	}
	return nil
}

// procEvent builds a proc.up or proc.down. An up carries the process's own
// start time, so a second look at the same process is the same event.
func (s *scanner) procEvent(kind string, sg sighting, t time.Time) event.Event {
	info := s.info
	if info == nil {
		info = proc.System{}
	}
	if t.IsZero() {
		t = info.Started(sg.found.PID)
		if t.IsZero() {
			t = s.d.now()
		}
	}
	e := event.New(kind, t, sg.found.Agent, s.rules.session(sg.found.Agent, sg.found.Argv))
	if sg.job != "" {
		e.Session, e.Where, e.Job = sg.viewed, event.WhereBackground, sg.job
	}
	e.Src = event.SrcProc
	e.Pane = sg.pane
	e.PID = sg.found.PID
	e.TTY = sg.tty
	e.Argv0 = sg.found.Argv0()
	e.Cwd = sg.cwd
	e.Why = s.rules.why(sg.found)
	if kind == event.ProcUp && s.rules.unread[sg.found.Agent] {
		e.Reason = event.ReasonUnread
	}
	e.ID = event.MakeID(event.SrcProc, "", kind, sg.pane, strconv.Itoa(sg.found.PID), strconv.FormatUint(sg.start, 10))
	if sg.job != "" {
		e.ID = event.MakeID(e.ID, sg.job)
	}
	return e
}

func (s *scanner) emit(e event.Event) error { return s.d.event(&e) }

// writeErr ends the run after a failed write: quietly when the reader went away.
func (s *scanner) writeErr(err error) int {
	if cli.IsClosedPipe(err) {
		return cli.ExitOK
	}
	s.d.prog.Errorf("%v", err)
	return cli.ExitError
}

func sortedKeys(m map[string]sighting) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Pane ids are %N: sort by number so output is stable and readable.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && paneLess(keys[j], keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func paneLess(a, b string) bool {
	na, ea := strconv.Atoi(strings.TrimPrefix(a, "%"))
	nb, eb := strconv.Atoi(strings.TrimPrefix(b, "%"))
	if ea == nil && eb == nil {
		return na < nb
	}
	return a < b
}
