package fold

import (
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

func host(h string) opt { return func(e *event.Event) { e.Host = h } }

// remoteState is a state of session sess on host h, as that host's ag-fold
// wrote it at second sec with gen.
func remoteState(h, sess string, sec float64, gen int64, status string, opts ...opt) *event.Event {
	e := event.New(event.State, at(sec), "claude", sess)
	e.Src, e.Host, e.Status, e.Gen, e.Pane, e.PID = event.SrcFold, h, status, gen, "%3", 4242
	since := event.At(at(sec))
	e.Since = &since
	e.Token = strings.Join([]string{"t", h, sess}, ".")
	e.ID = "st/" + h + "/" + sess + "/" + e.T.String()
	if status == event.StatusWaiting {
		e.Attention, e.Tool = event.AttnPermission, "Bash"
	}
	for _, o := range opts {
		o(&e)
	}
	return &e
}

func show(states []event.Event) string {
	var b []string
	for _, s := range states {
		x := s.Host + "/" + s.Session + " " + s.Status
		if s.Stale != "" {
			x += " stale"
		}
		b = append(b, x)
	}
	return strings.Join(b, "; ")
}

func TestHostIsIdentity(t *testing.T) {
	f := New(Config{Self: hostname.Named("laptop")})
	// The same session id, pane and pid on this host and on devbox are
	// two sessions; this host's events are stamped with its name.
	f.Apply(ev(event.SessionStart, event.SrcHook, 0, pane("%3"), pid(4242)))
	f.Apply(ev(event.TurnStart, event.SrcHook, 1, pane("%3"), pid(4242)))
	f.Apply(ev(event.SessionStart, event.SrcHook, 0, pane("%3"), pid(4242), host("devbox"), id("d0")))
	out := f.Apply(ev(event.Wait, event.SrcHook, 2, pane("%3"), pid(4242), host("devbox"), attn("permission"), tool("Bash", "t1"), id("d1")))
	if got := show(out); got != "devbox/s1 waiting" {
		t.Fatalf("devbox's wait: %s", got)
	}
	if got := show(f.States()); got != "laptop/s1 working; devbox/s1 waiting" {
		t.Errorf("states: %s", got)
	}
	// A pane sighting of %3 here goes to this host's session only.
	out = f.Apply(ev(event.Interrupt, event.SrcLog, 3, sess(""), pane("%3"), pid(4242)))
	if got := show(out); got != "laptop/s1 idle" {
		t.Errorf("sighting of this host's %%3: %s", got)
	}
	// Only this host's processes are checked, and only its waits watched.
	if p := f.Procs(); len(p) != 1 || p[0].Host != "laptop" {
		t.Errorf("Procs = %+v", p)
	}
	if w := f.Waits(); len(w) != 0 {
		t.Errorf("Waits = %+v (devbox's wait is not ours to look for)", w)
	}
	// proc.down of pid 4242 here leaves devbox's 4242 alone.
	out = f.Apply(ev(event.ProcDown, event.SrcProc, 4, sess(""), pid(4242)))
	if got := show(out); got != "laptop/s1 gone" {
		t.Errorf("proc.down: %s", got)
	}
	// The system's own name and no name are this host, with AG_HOST set.
	g := New(Config{Self: hostname.Named("laptop")})
	g.Apply(ev(event.SessionStart, event.SrcHook, 0))
	if got := show(g.Apply(ev(event.TurnStart, event.SrcLog, 1, host("laptop")))); got != "laptop/s1 working" {
		t.Errorf("no host and laptop are one host: %s", got)
	}
}

func TestRemoteStates(t *testing.T) {
	type step struct {
		e    *event.Event
		tick float64 // else: Tick at this second
		want string
	}
	down := func(h string, sec float64) *event.Event {
		e := event.New(event.HostDown, at(sec), "", "")
		e.Host, e.Src = h, "ssh"
		return &e
	}
	tests := []struct {
		name  string
		steps []step
		final string
	}{
		{"a newer state replaces, an older or the same one changes nothing", []step{
			{e: remoteState("devbox", "a", 1, 1, "working"), want: "devbox/a working"},
			{e: remoteState("devbox", "a", 2, 2, "waiting"), want: "devbox/a waiting"},
			{e: remoteState("devbox", "a", 1, 1, "working")},
			{e: remoteState("devbox", "a", 2, 2, "waiting")},
			{e: remoteState("devbox", "a", 2, 3, "working"), want: "devbox/a working"},
		}, "devbox/a working"},
		{"hosts keep their own sessions", []step{
			{e: remoteState("devbox", "a", 1, 1, "working"), want: "devbox/a working"},
			{e: remoteState("gpu", "a", 1, 1, "waiting"), want: "gpu/a waiting"},
		}, "devbox/a working; gpu/a waiting"},
		{"host.down makes its sessions stale, once; the host back confirms them", []step{
			{e: remoteState("devbox", "a", 1, 1, "working"), want: "devbox/a working"},
			{e: remoteState("devbox", "b", 1, 1, "gone"), want: "devbox/b gone"},
			{e: remoteState("gpu", "c", 1, 1, "idle"), want: "gpu/c idle"},
			{e: down("devbox", 0), want: "devbox/a working stale"},
			{e: down("devbox", 5)},
			{e: remoteState("devbox", "a", 1, 1, "working"), want: "devbox/a working"},
		}, "devbox/a working; devbox/b gone; gpu/c idle"},
		{"a stale session is dropped when its host stays away", []step{
			{e: remoteState("devbox", "a", 1, 1, "waiting"), want: "devbox/a waiting"},
			{e: down("devbox", 2), want: "devbox/a waiting stale"},
			{tick: 3},
			{tick: 3 + 599},
			{tick: 3 + 600},
		}, ""},
		{"a state for this host is a restore, not a remote", []step{
			// restored, and written out as the replay it stands for would
			{e: remoteState("laptop", "a", 1, 1, "working"), want: "laptop/a working"},
			{e: down("laptop", 2)},
		}, "laptop/a working"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := New(Config{Self: hostname.Named("laptop")})
			var lines LineCache
			for i, st := range tc.steps {
				var out []event.Event
				if st.e != nil {
					out = f.Apply(st.e)
				} else {
					out = f.Tick(at(st.tick))
				}
				if got := show(out); got != st.want {
					t.Fatalf("step %d: got %q, want %q", i, got, st.want)
				}
				sameLines(t, f, &lines)
			}
			if got := show(f.States()); got != tc.final {
				t.Errorf("final states %q, want %q", got, tc.final)
			}
		})
	}
}

func TestRemoteStateKeepsWhatItSaid(t *testing.T) {
	f := New(Config{Self: hostname.Named("laptop")})
	e := remoteState("devbox", "a", 1, 4, "waiting", text("rm -rf build"))
	e.Extra = []byte(`"ambiguous":true`)
	out := f.Apply(e)
	if len(out) != 1 {
		t.Fatalf("out %d", len(out))
	}
	want := string(event.Marshal(e))
	if got := string(event.Marshal(&out[0])); got != want {
		t.Errorf("passed on\n got %s\nwant %s", got, want)
	}
}
