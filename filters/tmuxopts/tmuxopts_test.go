package tmuxopts

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func st(sec int, session, pane, status string, opts ...func(*event.Event)) event.Event {
	e := event.Event{T: event.At(t0.Add(time.Duration(sec) * time.Second)), Kind: event.State,
		Agent: "claude", Session: session, Pane: pane, Status: status}
	for _, o := range opts {
		o(&e)
	}
	return e
}

func wait(attn, tool string) func(*event.Event) {
	return func(e *event.Event) { e.Attention, e.Tool = attn, tool }
}

var panes = map[string]Pane{
	"%1": {ID: "%1", Window: "@1", TTY: "/dev/pts/1"},
	"%2": {ID: "%2", Window: "@1", TTY: "/dev/pts/2"},
	"%3": {ID: "%3", Window: "@2", TTY: "/dev/pts/3"},
}

// lines renders commands one per line for comparison.
func lines(cmds [][]string) string {
	var b strings.Builder
	for _, c := range cmds {
		b.WriteString(strings.Join(c, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

func TestDiffSteps(t *testing.T) {
	m := NewModel(hostname.Named("vm"))
	applied := Set{}
	steps := []struct {
		name  string
		in    []event.Event
		panes map[string]Pane
		want  string
	}{
		{"first state sets pane, window and counts", []event.Event{st(0, "a", "%1", "working")}, panes, `
set-option -p -t %1 @ag_agent claude
set-option -p -t %1 @ag_icon ⚙
set-option -p -t %1 @ag_session a
set-option -p -t %1 @ag_status working
set-option -w -t @1 @ag_window_agent claude
set-option -w -t @1 @ag_window_icon ⚙
set-option -w -t @1 @ag_window_status working
set-option -g @ag_done 0
set-option -g @ag_failed 0
set-option -g @ag_summary ⚙1
set-option -g @ag_waiting 0
set-option -g @ag_working 1
`},
		{"same state again: nothing", []event.Event{st(1, "a", "%1", "working")}, panes, ``},
		{"a second pane in the window waits: the window takes the worst", []event.Event{st(2, "b", "%2", "waiting", wait("permission", "Bash"))}, panes, `
set-option -p -t %2 @ag_agent claude
set-option -p -t %2 @ag_attention permission
set-option -p -t %2 @ag_icon ⏳
set-option -p -t %2 @ag_session b
set-option -p -t %2 @ag_status waiting
set-option -p -t %2 @ag_tool Bash
set-option -w -t @1 @ag_window_attention permission
set-option -w -t @1 @ag_window_icon ⏳
set-option -w -t @1 @ag_window_status waiting
set-option -w -t @1 @ag_window_tool Bash
set-option -g @ag_summary ⏳1 ⚙1
set-option -g @ag_waiting 1
`},
		{"the first finishes: only its own options and the counts change", []event.Event{st(3, "a", "%1", "done")}, panes, `
set-option -p -t %1 @ag_icon ✓
set-option -p -t %1 @ag_status done
set-option -g @ag_done 1
set-option -g @ag_summary ⏳1 ✓1
set-option -g @ag_working 0
`},
		{"the wait ends: the window falls back to done", []event.Event{st(4, "b", "%2", "idle")}, panes, `
set-option -pu -t %2 @ag_attention
set-option -pu -t %2 @ag_icon
set-option -p -t %2 @ag_status idle
set-option -pu -t %2 @ag_tool
set-option -wu -t @1 @ag_window_attention
set-option -w -t @1 @ag_window_icon ✓
set-option -w -t @1 @ag_window_status done
set-option -wu -t @1 @ag_window_tool
set-option -g @ag_summary ✓1
set-option -g @ag_waiting 0
`},
		{"gone: the pane's options are cleared", []event.Event{st(5, "a", "%1", "gone")}, panes, `
set-option -pu -t %1 @ag_agent
set-option -pu -t %1 @ag_icon
set-option -pu -t %1 @ag_session
set-option -pu -t %1 @ag_status
set-option -wu -t @1 @ag_window_icon
set-option -w -t @1 @ag_window_status idle
set-option -g @ag_done 0
set-option -gu @ag_summary
`},
		{"a session in a pane of another server, or with another tty, sets nothing there", []event.Event{
			st(6, "c", "%9", "waiting", wait("question", "")),
			st(6, "d", "%3", "waiting", wait("permission", "Edit"), func(e *event.Event) { e.TTY = "/dev/pts/77" }),
		}, panes, `
set-option -g @ag_summary ⏳2
set-option -g @ag_waiting 2
`},
	}
	for _, s := range steps {
		for i := range s.in {
			m.Update(&s.in[i])
		}
		got := lines(Diff(applied, m.Desired(s.panes)))
		if want := strings.TrimPrefix(s.want, "\n"); got != want {
			t.Fatalf("%s:\ngot:\n%swant:\n%s", s.name, got, want)
		}
	}
}

func TestNewestSessionWinsThePane(t *testing.T) {
	m := NewModel(hostname.Named("vm"))
	old, cur := st(0, "old", "%1", "waiting", wait("permission", "Bash")), st(5, "new", "%1", "working")
	m.Update(&cur)
	m.Update(&old)
	got := m.Desired(panes)[Target{ScopePane, "%1"}]
	if got["@ag_session"] != "new" || got["@ag_status"] != "working" {
		t.Errorf("pane %%1 = %v, want the newer session", got)
	}
}

// TestManySessionsShowTheWorst: the sessions one OpenCode server hosts
// share its pane, which shows the one at work behind the newer finished one.
func TestManySessionsShowTheWorst(t *testing.T) {
	m := NewModel(hostname.Named("vm"))
	m.Many = func(a string) bool { return a == "opencode" }
	a, b := st(0, "a", "%1", "working"), st(5, "b", "%1", "done")
	for _, s := range []*event.Event{&a, &b} {
		s.Agent, s.PID = "opencode", 40
		m.Update(s)
	}
	if got := m.Desired(panes)[Target{ScopePane, "%1"}]; got["@ag_session"] != "a" || got["@ag_status"] != "working" {
		t.Errorf("pane %%1 = %v, want the session at work", got)
	}
}

func TestStaleIsCleared(t *testing.T) {
	applied := Set{}
	Stale(applied, Target{ScopePane, "%3"})
	cmds := Diff(applied, Set{Target{ScopePane, "%3"}: {"@ag_status": "done"}})
	got := lines(cmds)
	if !strings.Contains(got, "set-option -p -t %3 @ag_status done\n") || !strings.Contains(got, "set-option -pu -t %3 @ag_agent\n") ||
		strings.Count(got, "\n") != len(PaneKeys) {
		t.Errorf("stale pane: got\n%s", got)
	}
	if len(Diff(applied, Set{Target{ScopePane, "%3"}: {"@ag_status": "done"}})) != 0 {
		t.Error("second diff not empty")
	}
}

func TestPaneValuesMetersAndCleaning(t *testing.T) {
	left := 42
	e := st(0, "s", "%1", "waiting", wait("permission", "mcp__x#[fg=red];"), func(e *event.Event) {
		e.Model = "gpt-5\x1b[1m"
		e.Context = &event.Context{Used: 1, Size: 2, LeftPct: &left}
		e.Limits = []event.Limit{{Window: "5h", UsedPct: 12.6}, {Window: "7d", UsedPct: 3}, {Window: "1m", UsedPct: 99}}
	})
	v := PaneValues(&e)
	want := Values{"@ag_agent": "claude", "@ag_session": "s", "@ag_status": "waiting", "@ag_icon": "⏳",
		"@ag_attention": "permission", "@ag_tool": "mcp__x##[fg=red]", "@ag_model": "gpt-5[1m",
		"@ag_context_left": "42", "@ag_limit_5h": "13", "@ag_limit_week": "3"}
	for k, x := range want {
		if v[k] != x {
			t.Errorf("%s = %q, want %q", k, v[k], x)
		}
	}
	if len(v) != len(want) {
		t.Errorf("values %v, want %v", v, want)
	}
}

func TestJoin(t *testing.T) {
	got := strings.Join(Join([][]string{{"a", "1"}, {"b"}, {"c", "2"}}), " ")
	if got != "a 1 ; b ; c 2" {
		t.Errorf("Join = %q", got)
	}
}

func onHost(h string) func(*event.Event) { return func(e *event.Event) { e.Host = h } }
func gen(n int64) func(*event.Event)     { return func(e *event.Event) { e.Gen = n } }

// TestHostsAndReplays: another host's %1 never goes on this server's %1;
// its sessions count in the summary, by host; a replayed older state never
// overwrites a newer option, nor brings a gone session back.
func TestHostsAndReplays(t *testing.T) {
	steps := []struct {
		name string
		in   []event.Event
		want string
	}{
		{"this host's %1 and devbox's %1", []event.Event{
			st(0, "a", "%1", "working", onHost("vm"), gen(1)),
			st(1, "a", "%1", "waiting", onHost("devbox"), gen(2), wait("permission", "Bash")),
		}, `
set-option -p -t %1 @ag_agent claude
set-option -p -t %1 @ag_icon ⚙
set-option -p -t %1 @ag_session a
set-option -p -t %1 @ag_status working
set-option -w -t @1 @ag_window_agent claude
set-option -w -t @1 @ag_window_icon ⚙
set-option -w -t @1 @ag_window_status working
set-option -g @ag_done 0
set-option -g @ag_failed 0
set-option -g @ag_summary vm ⚙1 · devbox ⏳1
set-option -g @ag_waiting 1
set-option -g @ag_working 1
`},
		{"the same states replayed, and older ones: nothing", []event.Event{
			st(0, "a", "%1", "idle", onHost("vm"), gen(0)),
			st(0, "a", "%1", "working", onHost("vm"), gen(1)),
			st(1, "a", "%1", "waiting", onHost("devbox"), gen(2), wait("permission", "Bash")),
			st(0, "a", "%1", "working", onHost("devbox"), gen(1)),
		}, ``},
		{"devbox's link is down: its session is unknown", []event.Event{
			st(1, "a", "%1", "waiting", onHost("devbox"), gen(2), wait("permission", "Bash"), func(e *event.Event) { e.Stale = "lost touch with devbox" }),
		}, `
set-option -g @ag_summary vm ⚙1 · devbox ?1
set-option -g @ag_waiting 0
`},
		{"this host's session ends; its replay does not bring it back", []event.Event{
			st(5, "a", "%1", "gone", onHost("vm"), gen(3)),
			st(0, "a", "%1", "working", onHost("vm"), gen(1)),
		}, `
set-option -pu -t %1 @ag_agent
set-option -pu -t %1 @ag_icon
set-option -pu -t %1 @ag_session
set-option -pu -t %1 @ag_status
set-option -wu -t @1 @ag_window_agent
set-option -wu -t @1 @ag_window_icon
set-option -wu -t @1 @ag_window_status
set-option -g @ag_summary devbox ?1
set-option -g @ag_working 0
`},
	}
	m := NewModel(hostname.Named("vm"))
	applied := Set{}
	for _, s := range steps {
		for i := range s.in {
			m.Update(&s.in[i])
		}
		got := "\n" + lines(Diff(applied, m.Desired(panes)))
		if got == "\n" {
			got = ""
		}
		if got != s.want {
			t.Errorf("%s:\n got %s\nwant %s", s.name, got, s.want)
		}
	}
}
