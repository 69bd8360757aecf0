package notify

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

// st is a state as ag-fold writes it: host/session, status[/attention],
// the second it was written, its gen (since = t of the gen's edge).
func st(hostSess, status string, sec, gen int) *event.Event {
	host, sess, _ := strings.Cut(hostSess, "/")
	status, attn, _ := strings.Cut(status, "/")
	e := event.New(event.State, t0.Add(time.Duration(sec)*time.Second), "claude", sess)
	e.Src, e.Host, e.Status, e.Attention, e.Pane, e.Gen = event.SrcFold, host, status, attn, "%3", int64(gen)
	if attn != "" {
		e.Tool = "Bash"
	}
	e.Token = strconv.Itoa(sec) + "." + strconv.Itoa(gen)
	return &e
}

func staleOf(e *event.Event) *event.Event { c := *e; c.Stale = "lost touch with " + e.Host; return &c }

func titles(ds []Decision) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, d.Op.String()+" "+d.Note.Kind+" "+d.Note.Title+" ["+strconv.Itoa(len(d.Note.Buttons))+"]")
	}
	return strings.Join(parts, "; ")
}

// TestReplayTwice: the same states fed twice (cat states states | ag-notify)
// notify once: the second pass delivers nothing and retracts nothing.
func TestReplayTwice(t *testing.T) {
	stream := []*event.Event{
		st("vm/a", "working", 0, 1),
		st("vm/a", "waiting/permission", 1, 2),
		st("vm/b", "working", 1, 1),
		st("vm/a", "working", 2, 3),
		st("vm/a", "waiting/permission", 3, 4),
		st("vm/b", "gone", 4, 2),
	}
	p := New(Config{Self: hostname.Named("vm")})
	var first, second []string
	for _, e := range stream {
		first = append(first, show(p.Observe(t0.Add(5*time.Second), e)))
	}
	for _, e := range stream {
		second = append(second, show(p.Observe(t0.Add(6*time.Second), e)))
	}
	if got := strings.Join(first, " | "); got != " | deliver waiting a |  | retract waiting a resolved | deliver waiting a | " {
		t.Errorf("first pass: %q", got)
	}
	if got := strings.Join(second, ""); got != "" {
		t.Errorf("second pass did something: %q", strings.Join(second, " | "))
	}
}

func TestPolicyReplays(t *testing.T) {
	tests := []struct {
		name  string
		steps []*event.Event
		want  []string
	}{
		{"an older state after a wait changes nothing", []*event.Event{
			st("vm/a", "waiting/permission", 2, 2), st("vm/a", "working", 1, 1),
		}, []string{"deliver waiting a", ""}},
		{"the same gen and token again changes nothing, even later", []*event.Event{
			st("vm/a", "waiting/permission", 2, 2), func() *event.Event {
				e := st("vm/a", "waiting/permission", 2, 2)
				e.T = event.At(e.T.Add(time.Second))
				return e
			}(),
		}, []string{"deliver waiting a", ""}},
		{"at the same time the higher gen wins", []*event.Event{
			st("vm/a", "waiting/permission", 2, 3), st("vm/a", "working", 2, 2),
		}, []string{"deliver waiting a", ""}},
		{"a gone session is not brought back by its replay", []*event.Event{
			st("vm/a", "working", 1, 1), st("vm/a", "gone", 2, 2), st("vm/a", "waiting/permission", 1, 1),
		}, []string{"", "", ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Config{Self: hostname.Named("vm")})
			for i, e := range tc.steps {
				if got := show(p.Observe(t0.Add(3*time.Second), e)); got != tc.want[i] {
					t.Errorf("step %d: got %q, want %q", i, got, tc.want[i])
				}
			}
		})
	}
}

// TestPolicyHosts: sessions are keyed by host; another host's notes name
// it; a stale state (or host.down) replaces the note with one saying the
// host is out of reach, without buttons, and the host confirming the same
// state gives the note back.
func TestPolicyHosts(t *testing.T) {
	p := New(Config{Self: hostname.Named("laptop"), Agents: agents})
	now := t0.Add(3 * time.Second)
	down := event.New(event.HostDown, now, "", "")
	down.Host = "devbox"
	wait := st("devbox/a", "waiting/permission", 2, 2)
	steps := []struct {
		e    *event.Event
		want string
	}{
		{st("laptop/a", "waiting/permission", 1, 2), "deliver waiting Claude Code · a [2]"},
		{wait, "deliver waiting Claude Code@devbox · a [2]"},
		{st("laptop/a", "waiting/permission", 1, 2), ""},
		{staleOf(wait), "deliver stale Claude Code@devbox · a [0]"},
		{staleOf(wait), ""},
		{wait, "deliver waiting Claude Code@devbox · a [2]"},
		{&down, "deliver stale Claude Code@devbox · a [0]"},
		{&down, ""},
		{st("devbox/a", "working", 4, 3), "retract stale Claude Code@devbox · a [0]"},
	}
	for i, s := range steps {
		if got := titles(p.Observe(now, s.e)); got != s.want {
			t.Errorf("step %d: got %q, want %q", i, got, s.want)
		}
	}
	if h := p.Hosts(); len(h) != 1 || h[0] != "devbox" {
		t.Errorf("Hosts = %v", h)
	}
	// The end of input marks devbox out of reach too.
	p.Observe(now, st("devbox/b", "waiting/question", 5, 2))
	if got := titles(p.Unreachable("devbox")); got != "deliver stale Claude Code@devbox · b [0]" {
		t.Errorf("Unreachable: %q", got)
	}
}
