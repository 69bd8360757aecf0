package fold

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
)

// warnings collects what a fold says.
type warnings []string

func (w *warnings) warn(s string) { *w = append(*w, s) }

// TestRemoteStateDatedAhead: a state dated 9999-12-31 froze its session
// for good (issue 28): every later state, the real wait included, looked
// older. Taken as dated when it arrived, the next state passes.
func TestRemoteStateDatedAhead(t *testing.T) {
	var w warnings
	f := New(Config{Self: hostname.Named("laptop"), Warn: w.warn})
	f.SetNow(at(10))
	f.Apply(remoteState("devbox", "a", 9, 2, "working"))
	far := remoteState("devbox", "a", 9, 3, "idle")
	far.T = event.At(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC))
	if got := show(f.Apply(far)); got != "devbox/a idle" {
		t.Fatalf("the state dated 9999: %q", got)
	}
	f.SetNow(at(11))
	if got := show(f.Apply(remoteState("devbox", "a", 11, 4, "waiting"))); got != "devbox/a waiting" {
		t.Errorf("the real wait after it: %q, want it to pass", got)
	}
	// A far date with a gen from nowhere holds nothing either: the next
	// state dated later passes.
	far = remoteState("devbox", "a", 0, 1<<62, "idle")
	far.T = event.At(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
	f.Apply(far)
	f.SetNow(at(12))
	if got := show(f.Apply(remoteState("devbox", "a", 12, 5, "waiting"))); got != "devbox/a waiting" {
		t.Errorf("after a gen of 2^62 dated 9999: %q", got)
	}
	if len(w) != 1 || !strings.Contains(w[0], "devbox: an event dated 9999-12-31T23:59:59.000Z") || !strings.Contains(w[0], "dated as the events before it") {
		t.Errorf("said %q; want one line for devbox", w)
	}
}

// TestRemoteOrderByGen: within a host, gen orders states, not a clock: a
// host whose clock went back still moves its sessions on.
func TestRemoteOrderByGen(t *testing.T) {
	f := New(Config{Self: hostname.Named("laptop")})
	f.Apply(remoteState("devbox", "a", 100, 2, "working"))
	if got := show(f.Apply(remoteState("devbox", "a", 50, 3, "waiting"))); got != "devbox/a waiting" {
		t.Errorf("gen 3 dated before gen 2: %q, want it newer", got)
	}
	if got := show(f.Apply(remoteState("devbox", "a", 40, 2, "working"))); got != "" {
		t.Errorf("gen 2 again, dated before: %q, want nothing", got)
	}
	// Its fold started over without a state file: gens from 1 again,
	// later in time.
	if got := show(f.Apply(remoteState("devbox", "a", 101, 1, "idle"))); got != "devbox/a idle" {
		t.Errorf("gen 1 after a restart: %q", got)
	}
}

// TestLocalEventAhead: one hook event stamped an hour ahead (a clock
// stepped back since) froze the session: the real wait after it was
// ignored. It is taken as dated when it arrived.
func TestLocalEventAhead(t *testing.T) {
	var w warnings
	f := New(Config{Warn: w.warn})
	f.SetNow(at(10))
	f.Apply(ev(event.SessionStart, event.SrcHook, 9))
	f.Apply(ev(event.TurnStart, event.SrcHook, 10+3600))
	f.SetNow(at(12))
	got := show(f.Apply(ev(event.Wait, event.SrcHook, 11, attn("permission"), tool("Bash", "t1"))))
	if got != "/s1 waiting" {
		t.Errorf("the wait after an event an hour ahead: %q", got)
	}
	if len(w) != 1 || !strings.HasPrefix(w[0], "this host: an event dated ") {
		t.Errorf("said %q", w)
	}
}

// TestClockSteppedBack: the fold took events while the machine's clock was
// an hour ahead; stepped back, the next tick takes back what the session
// holds dated ahead, and the next event is news.
func TestClockSteppedBack(t *testing.T) {
	f := New(Config{})
	f.SetNow(at(3600))
	f.Apply(ev(event.SessionStart, event.SrcHook, 3600))
	f.Apply(ev(event.TurnStart, event.SrcHook, 3601))
	f.SetNow(at(10))
	f.Tick(at(10))
	if got := show(f.Apply(ev(event.Wait, event.SrcHook, 11, attn("permission"), tool("Bash", "t1")))); got != "/s1 waiting" {
		t.Errorf("the wait after the clock stepped back: %q", got)
	}
}

// TestHostSessionCap: a host may keep HostSessions sessions; a new one
// takes the place of its least urgent, oldest; said once.
func TestHostSessionCap(t *testing.T) {
	var w warnings
	f := New(Config{Self: hostname.Named("laptop"), HostSessions: 3, Warn: w.warn})
	f.Apply(remoteState("devbox", "w", 1, 1, "waiting"))
	f.Apply(remoteState("devbox", "d1", 2, 1, "done"))
	f.Apply(remoteState("devbox", "d2", 3, 1, "done"))
	f.Apply(remoteState("devbox", "x", 4, 1, "working"))
	f.Apply(remoteState("devbox", "y", 5, 1, "working"))
	if got := show(f.States()); got != "devbox/w waiting; devbox/x working; devbox/y working" {
		t.Errorf("states %q", got)
	}
	if len(w) != 1 || !strings.Contains(w[0], "devbox: more than 3 sessions") {
		t.Errorf("said %q", w)
	}
}

// TestRemoteSessionCap: all other hosts together keep RemoteSessions; a
// host with few takes room from the host that keeps the most.
func TestRemoteSessionCap(t *testing.T) {
	f := New(Config{Self: hostname.Named("laptop"), RemoteSessions: 4})
	for i := range 4 {
		f.Apply(remoteState("flood", fmt.Sprint("f", i), float64(i), 1, "waiting"))
	}
	if got := show(f.Apply(remoteState("devbox", "a", 9, 1, "waiting"))); got != "devbox/a waiting" {
		t.Fatalf("devbox's new session: %q", got)
	}
	if n := len(f.States()); n != 4 {
		t.Errorf("%d sessions kept, want 4", n)
	}
	if got := show(f.States()); !strings.Contains(got, "devbox/a") || strings.Contains(got, "flood/f0") {
		t.Errorf("states %q: want devbox/a in, flood's oldest out", got)
	}
	// Local sessions are never counted nor displaced.
	f.Apply(ev(event.SessionStart, event.SrcHook, 1))
	if got := show(f.States()); !strings.Contains(got, "laptop/s1") {
		t.Errorf("states %q", got)
	}
}

// TestHostRate: past its burst a host's changes wait, the newest of each
// session only, and pass at the rate; said once.
func TestHostRate(t *testing.T) {
	var w warnings
	f := New(Config{Self: hostname.Named("laptop"), HostRate: 2, HostBurst: 2, Warn: w.warn})
	f.SetNow(at(0))
	var passed []string
	for i := range 5 {
		passed = append(passed, show(f.Apply(remoteState("flood", fmt.Sprint("s", i), 0, 1, "waiting"))))
	}
	f.Apply(remoteState("flood", "s4", 0.5, 2, "idle")) // replaces the parked one
	if got := strings.Join(passed, ","); got != "flood/s0 waiting,flood/s1 waiting,,," {
		t.Errorf("at once: %q", got)
	}
	// Another host is not held by this one's limit.
	if got := show(f.Apply(remoteState("devbox", "a", 0, 1, "waiting"))); got != "devbox/a waiting" {
		t.Errorf("devbox: %q", got)
	}
	if !f.Parked() {
		t.Fatal("nothing parked")
	}
	if got := show(f.Release(at(1))); got != "flood/s2 waiting; flood/s3 waiting" {
		t.Errorf("after 1s: %q", got)
	}
	if got := show(f.Release(at(2))); got != "flood/s4 idle" || f.Parked() {
		t.Errorf("after 2s: %q, parked %v", got, f.Parked())
	}
	if len(w) != 1 || !strings.Contains(w[0], "flood: more than 2 state changes at once, or 2 a second") {
		t.Errorf("said %q", w)
	}
}

// TestQuietHost: a host heard of nothing for QuietHost has its sessions
// marked stale, dropped KeepGone later; heard again, it is back.
func TestQuietHost(t *testing.T) {
	f := New(Config{Self: hostname.Named("laptop"), QuietHost: time.Minute})
	f.SetNow(at(0))
	f.Apply(remoteState("made-up", "a", 0, 1, "waiting"))
	if got := show(f.Tick(at(59))); got != "" {
		t.Errorf("at 59s: %q", got)
	}
	if got := show(f.Tick(at(60))); got != "made-up/a waiting stale" {
		t.Errorf("at 60s: %q", got)
	}
	f.Tick(at(61))
	f.Tick(at(61 + 600))
	f.Tick(at(62 + 600)) // the host, with nothing left, is forgotten
	if n := len(f.States()); n != 0 {
		t.Errorf("%d sessions kept after KeepGone", n)
	}
	if len(f.hosts) != 0 {
		t.Errorf("hosts kept: %v", f.hosts)
	}
}

// TestMaxHosts: past MaxHosts other hosts, a new one's states are left
// out, said once.
func TestMaxHosts(t *testing.T) {
	var w warnings
	f := New(Config{Self: hostname.Named("laptop"), MaxHosts: 2, Warn: w.warn})
	for _, h := range []string{"a", "b", "c", "d"} {
		f.Apply(remoteState(h, "s", 1, 1, "working"))
	}
	if got := show(f.States()); got != "a/s working; b/s working" || len(w) != 1 {
		t.Errorf("states %q, said %q", got, w)
	}
}

// TestRemoteTextBounded: another host's state holds at most remoteText
// bytes a text, and no huge unknown members.
func TestRemoteTextBounded(t *testing.T) {
	f := New(Config{Self: hostname.Named("laptop")})
	e := remoteState("devbox", "a", 1, 1, "waiting", text(strings.Repeat("x", 1<<20)))
	e.Extra = []byte(`"junk":"` + strings.Repeat("y", 1<<20) + `"`)
	out := f.Apply(e)
	if len(out) != 1 || len(out[0].Text) > remoteText || len(out[0].Extra) != 0 {
		t.Errorf("kept %d bytes of text, %d of extra", len(out[0].Text), len(out[0].Extra))
	}
}

// TestHostsShareARate: all hosts' changes together pass at five times a
// host's rate; what waited for that share alone (a host within its own
// rate) passes first, before the flooding hosts' parked states.
func TestHostsShareARate(t *testing.T) {
	f := New(Config{Self: hostname.Named("laptop"), HostRate: 2, HostBurst: 2})
	f.SetNow(at(0))
	passed := 0
	for h := range 10 {
		for i := range 5 {
			passed += len(f.Apply(remoteState(fmt.Sprint("flood", h), fmt.Sprint("s", i), 0, 1, "waiting")))
		}
	}
	if passed != 20 {
		t.Errorf("%d of 50 passed at once; want 20 (two seconds of all hosts' share)", passed)
	}
	if got := show(f.Apply(remoteState("devbox", "a", 0, 1, "waiting"))); got != "" {
		t.Errorf("devbox with the share used up: %q, want it to wait", got)
	}
	if got := show(f.Release(at(0.1))); got != "devbox/a waiting" {
		t.Errorf("the first release: %q, want devbox's wait first", got)
	}
}

// TestDrain: at the end of input every state that waited passes.
func TestDrain(t *testing.T) {
	f := New(Config{Self: hostname.Named("laptop"), HostRate: 1, HostBurst: 1})
	f.SetNow(at(0))
	for i := range 5 {
		f.Apply(remoteState("flood", fmt.Sprint("s", i), 0, 1, "waiting"))
	}
	if got := len(f.Drain()); got != 4 || f.Parked() {
		t.Errorf("Drain passed %d, parked %v; want 4 and none", got, f.Parked())
	}
}

// TestGoodHostFirstAmidFlood: fifty hosts each publish 400 waits at once,
// within their own burst at first (the share all hosts have runs out
// before theirs does); a host that keeps to its rate parks one wait
// behind them. It passes in the next release, not after the flood: the
// flooders' parked states do not fit their own buckets, so they are not
// the hosts that keep to their rate, and each group's turn goes on where
// the last release stopped (it moved one host a release, and devbox, last
// of 51 by name, waited 40 releases: 3.4 s in TestMQTTFlood).
func TestGoodHostFirstAmidFlood(t *testing.T) {
	f := New(Config{Self: hostname.Named("laptop"), HostRate: 20, HostBurst: 40})
	f.SetNow(at(0))
	for i := range 400 {
		for h := range 50 {
			f.Apply(remoteState(fmt.Sprintf("flood%02d", h), fmt.Sprint("s", i), 0, 1, "waiting"))
		}
	}
	if got := show(f.Apply(remoteState("zdevbox", "a", 0, 1, "waiting"))); got != "" {
		t.Fatalf("zdevbox with the share used up: %q, want it to wait", got)
	}
	if got := show(f.Release(at(0.1))); !strings.HasPrefix(got, "zdevbox/a waiting") {
		t.Errorf("the first release: %q, want zdevbox's wait first", got)
	}
	// The flooders in turn: 100 a second among 50 hosts, each one's
	// next state before any host's third.
	served := map[string]int{}
	for i := 2; i <= 11; i++ {
		for _, e := range f.Release(at(float64(i) / 10)) {
			served[e.Host]++
		}
	}
	for h, n := range served {
		if n > 2 {
			t.Errorf("%s: %d states in a second while others had fewer: %v", h, n, served)
			break
		}
	}
	if len(served) != 50 {
		t.Errorf("%d hosts served in a second of releases, want all 50: %v", len(served), served)
	}
}
