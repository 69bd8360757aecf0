package notify

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// step is one moment of a timing table: a state arrives (st), the clock
// ticks (tick: Due is called), or the pane is checked (sweep). at is the
// arrival time; age how old the state already is when it arrives.
type step struct {
	at      time.Duration
	st      string // "status[/attention]", "" for none
	session string // default "s1"
	tok     string // default: derived from status+attention+at
	age     time.Duration
	tick    bool
	sweep   bool
	look    int // from this step on the user is looking (1) or not (-1)
	want    string
}

func stateAt(st step) *event.Event {
	status, attn, _ := strings.Cut(st.st, "/")
	sess := st.session
	if sess == "" {
		sess = "s1"
	}
	e := event.New(event.State, t0.Add(st.at-st.age), "claude", sess)
	e.Src, e.Status, e.Attention, e.Pane = event.SrcFold, status, attn, "%1"
	e.Token = st.tok
	if e.Token == "" {
		e.Token = fmt.Sprintf("%s.%s.%d", status, attn, st.at.Milliseconds())
	}
	return &e
}

func show(ds []Decision) string {
	var parts []string
	for _, d := range ds {
		s := d.Op.String() + " " + d.Note.Kind + " " + d.Note.Session
		if d.Reason != "" {
			s += " " + d.Reason
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func TestPolicyTiming(t *testing.T) {
	sec := time.Second
	tests := []struct {
		name  string
		steps []step
	}{
		{"waiting notifies at once", []step{
			{at: 0, st: "working"},
			{at: sec, st: "waiting/permission", want: "deliver waiting s1"},
		}},
		{"first sight of a fresh wait notifies", []step{
			{at: 0, st: "waiting/question", want: "deliver waiting s1"},
		}},
		{"the same state again is quiet", []step{
			{at: 0, st: "waiting/permission", tok: "a", want: "deliver waiting s1"},
			{at: sec, st: "waiting/permission", tok: "a"},
		}},
		{"wait resolved retracts", []step{
			{at: 0, st: "working"},
			{at: sec, st: "waiting/permission", want: "deliver waiting s1"},
			{at: 2 * sec, st: "working", want: "retract waiting s1 resolved"},
		}},
		{"a new wait replaces the shown one despite the cooldown", []step{
			{at: 0, st: "waiting/permission", tok: "a", want: "deliver waiting s1"},
			{at: sec, st: "waiting/plan", tok: "b", want: "deliver waiting s1"},
		}},
		{"cooldown holds back a second wait within 60s", []step{
			{at: 0, st: "waiting/permission", want: "deliver waiting s1"},
			{at: sec, st: "working", want: "retract waiting s1 resolved"},
			{at: 30 * sec, st: "waiting/permission"},
			{at: 31 * sec, st: "working"},
			{at: 61 * sec, st: "waiting/permission", want: "deliver waiting s1"},
		}},
		{"cooldown is per session", []step{
			{at: 0, st: "waiting/permission", want: "deliver waiting s1"},
			{at: sec, st: "waiting/permission", session: "s2", want: "deliver waiting s2"},
		}},
		{"cooldown is per kind", []step{
			{at: 0, st: "working"},
			{at: sec, st: "waiting/permission", want: "deliver waiting s1"},
			{at: 2 * sec, st: "working", want: "retract waiting s1 resolved"},
			{at: 3 * sec, st: "done"},
			{at: 4 * sec, tick: true, want: "deliver done s1"},
		}},
		{"done waits out the debounce", []step{
			{at: 0, st: "working"},
			{at: sec, st: "done"},
			{at: 1500 * time.Millisecond, tick: true},
			{at: 2 * sec, tick: true, want: "deliver done s1"},
			{at: 3 * sec, tick: true},
		}},
		{"done then working within the debounce is not finished", []step{
			{at: 0, st: "working"},
			{at: sec, st: "done"},
			{at: 1500 * time.Millisecond, st: "working"},
			{at: 5 * sec, tick: true},
		}},
		{"failed after working notifies", []step{
			{at: 0, st: "working"},
			{at: sec, st: "failed"},
			{at: 2 * sec, tick: true, want: "deliver failed s1"},
		}},
		{"done without working first is quiet", []step{
			{at: 0, st: "idle"},
			{at: sec, st: "done"},
			{at: 3 * sec, tick: true},
		}},
		{"done after waiting is quiet", []step{
			{at: 0, st: "waiting/permission", want: "deliver waiting s1"},
			{at: sec, st: "done", want: "retract waiting s1 resolved"},
			{at: 3 * sec, tick: true},
		}},
		{"a shown done is retracted by the next turn", []step{
			{at: 0, st: "working"},
			{at: sec, st: "done"},
			{at: 2 * sec, tick: true, want: "deliver done s1"},
			{at: 9 * sec, st: "working", want: "retract done s1 resolved"},
		}},
		{"a state older than 10s is history", []step{
			{at: 0, st: "working", age: time.Minute},
			{at: sec, st: "waiting/permission", age: 11 * sec},
		}},
		{"a state 10s old still counts", []step{
			{at: sec, st: "waiting/permission", age: 10 * sec, want: "deliver waiting s1"},
		}},
		{"stale done after working is history too", []step{
			{at: 0, st: "working", age: time.Hour},
			{at: sec, st: "done", age: time.Hour},
			{at: 5 * sec, tick: true},
		}},
		{"history then a live wait", []step{
			{at: 0, st: "waiting/permission", age: time.Hour},
			{at: sec, st: "working", age: time.Hour},
			{at: 2 * sec, st: "waiting/permission", want: "deliver waiting s1"},
		}},
		{"a state too old to notify still retracts", []step{
			{at: 0, st: "waiting/permission", want: "deliver waiting s1"},
			{at: 20 * sec, st: "working", age: 15 * sec, want: "retract waiting s1 resolved"},
		}},
		{"a state older than the wait retracts nothing", []step{
			{at: 0, st: "waiting/permission", want: "deliver waiting s1"},
			{at: sec, st: "working", age: time.Minute},
		}},
		{"gone retracts", []step{
			{at: 0, st: "waiting/question", want: "deliver waiting s1"},
			{at: sec, st: "gone", want: "retract waiting s1 gone"},
		}},
		{"quiet while looking", []step{
			{at: 0, st: "working", look: 1},
			{at: sec, st: "waiting/permission"},
		}},
		{"quiet while looking holds for a debounced done", []step{
			{at: 0, st: "working"},
			{at: sec, st: "done", look: 1},
			{at: 2 * sec, tick: true},
		}},
		{"looking at the pane retracts and clears the cooldown", []step{
			{at: 0, st: "waiting/permission", want: "deliver waiting s1"},
			{at: sec, sweep: true},
			{at: 2 * sec, sweep: true, look: 1, want: "retract waiting s1 seen"},
			{at: 3 * sec, st: "working"},
			{at: 4 * sec, st: "waiting/permission", look: -1, want: "deliver waiting s1"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			looking := false
			p := New(Config{
				Debounce: DefaultDebounce, Cooldown: DefaultCooldown, MaxAge: DefaultMaxAge,
				Looking: func(string) bool { return looking },
			})
			for i, st := range tc.steps {
				if st.look != 0 {
					looking = st.look > 0
				}
				now := t0.Add(st.at)
				var got []Decision
				switch {
				case st.tick:
					got = p.Due(now)
				case st.sweep:
					got = p.Sweep(now)
				default:
					got = p.Observe(now, stateAt(st))
				}
				if s := show(got); s != st.want {
					t.Errorf("step %d (%+v): got %q; want %q", i, st, s, st.want)
				}
			}
		})
	}
}

func TestPolicyNext(t *testing.T) {
	p := New(Config{Debounce: time.Second})
	if _, ok := p.Next(); ok {
		t.Fatal("Next on an empty policy: ok")
	}
	p.Observe(t0, stateAt(step{st: "working"}))
	p.Observe(t0.Add(time.Second), stateAt(step{at: time.Second, st: "done"}))
	if next, ok := p.Next(); !ok || !next.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("Next = %v, %v; want %v", next, ok, t0.Add(2*time.Second))
	}
}

func TestPolicyIgnoresOtherKinds(t *testing.T) {
	p := New(Config{})
	e := stateAt(step{st: "waiting/permission"})
	e.Kind = event.Wait
	if got := p.Observe(t0, e); len(got) != 0 {
		t.Fatalf("Observe(wait event) = %s; want nothing", show(got))
	}
}

func TestCooldownDefersAWaitInsteadOfDroppingIt(t *testing.T) {
	p := New(Config{Cooldown: 60 * time.Second})
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	st := func(sec int, status string) *event.Event {
		e := event.New(event.State, t0.Add(time.Duration(sec)*time.Second), "claude", "s1")
		e.Status, e.Attention, e.Tool = status, "", ""
		if status == event.StatusWaiting {
			e.Attention, e.Tool = event.AttnPermission, "Bash"
		}
		e.Since, e.Gen = event.Ptr(e.T.Time), int64(sec)
		return &e
	}
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	if d := p.Observe(at(0), st(0, event.StatusWaiting)); len(d) != 1 || d[0].Op != Deliver {
		t.Fatalf("first wait: %+v", d)
	}
	p.Observe(at(5), st(5, event.StatusWorking))
	if d := p.Observe(at(10), st(10, event.StatusWaiting)); len(d) != 0 {
		t.Fatalf("second wait inside the cooldown: %+v; want it deferred", d)
	}
	if next, ok := p.Next(); !ok || !next.Equal(at(60)) {
		t.Fatalf("Next = %v %v; want the end of the cooldown", next, ok)
	}
	if d := p.Due(at(60)); len(d) != 1 || d[0].Op != Deliver {
		t.Fatalf("at the end of the cooldown: %+v; want the wait told", d)
	}

	// Answering from a notification ends the cooldown at once.
	p.Observe(at(70), st(70, event.StatusWorking))
	p.Answered(key(st(70, event.StatusWorking)))
	if d := p.Observe(at(75), st(75, event.StatusWaiting)); len(d) != 1 {
		t.Fatalf("wait after an answer: %+v; want it told at once", d)
	}
}

// TestHostBudget: another host gets HostBurst notifications at once, then
// HostRate a minute; a wait past that is told when the budget allows, if
// it still waits; said once; this host and other hosts are not held.
func TestHostBudget(t *testing.T) {
	p := New(Config{Self: hostname.Named("laptop"), Agents: agents})
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	wait := func(host string, i int) *event.Event {
		e := event.New(event.State, now, "claude", fmt.Sprint(host, i))
		e.Host, e.Status, e.Attention, e.Gen, e.Token = host, event.StatusWaiting, event.AttnPermission, 1, fmt.Sprint("1.", i)
		return &e
	}
	shown := 0
	for i := range 30 {
		shown += len(p.Observe(now, wait("flood", i)))
	}
	if shown != HostBurst {
		t.Errorf("%d of 30 waits shown at once; want %d", shown, HostBurst)
	}
	if l := p.Limited(); len(l) != 1 || l[0] != "flood" || len(p.Limited()) != 0 {
		t.Errorf("Limited = %v, want flood once", l)
	}
	if ds := p.Observe(now, wait("devbox", 0)); len(ds) != 1 {
		t.Errorf("devbox's wait: %v", ds)
	}
	if ds := p.Observe(now, wait("laptop", 0)); len(ds) != 1 {
		t.Errorf("this host's wait: %v", ds)
	}
	next, ok := p.Next()
	if !ok || next.Sub(now) > time.Minute/HostRate+time.Second {
		t.Fatalf("the next flood wait is due at %v", next)
	}
	if ds := p.Due(next); len(ds) != 1 {
		t.Errorf("%d waits told when the budget allowed one", len(ds))
	}
}

// TestDatedAheadSilencesNothing: a state dated in year 9999 made every
// later state of its session look old: the real wait was never told. A
// higher gen is news whatever its date.
func TestDatedAheadSilencesNothing(t *testing.T) {
	p := New(Config{Self: hostname.Named("laptop"), Agents: agents})
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	st := func(t time.Time, gen int64, status string) *event.Event {
		e := event.New(event.State, t, "claude", "s")
		e.Host, e.Status, e.Gen, e.Token = "devbox", status, gen, fmt.Sprint("1.", gen)
		if status == event.StatusWaiting {
			e.Attention = event.AttnPermission
		}
		return &e
	}
	p.Observe(now, st(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), 3, event.StatusWorking))
	if ds := p.Observe(now, st(now, 4, event.StatusWaiting)); len(ds) != 1 || ds[0].Op != Deliver {
		t.Errorf("the wait after a state dated 9999: %v, want it told", ds)
	}
}
