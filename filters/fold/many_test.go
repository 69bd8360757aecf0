package fold

import (
	"testing"

	"github.com/agwatch/ag/filters/event"
)

// oc is an opencode event of session s in process 300 (one server, one pane).
func oc(kind string, sec float64, s string, opts ...opt) *event.Event {
	return ev(kind, hook, sec, append([]opt{agent("opencode"), sess(s), pid(300), pane("%7")}, opts...)...)
}

func manyFolder(t *testing.T) *folder {
	f := newFolder(t)
	f.Folder = New(Config{ManySessions: func(a string) bool { return a == "opencode" }})
	return f
}

func (f *folder) of(session string) event.Event {
	f.t.Helper()
	for _, s := range f.States() {
		if s.Session == session {
			return s
		}
	}
	f.t.Fatalf("no state for %s", session)
	return event.Event{}
}

// TestAmbiguousWaits: one OpenCode process, two sessions. One waiting is a
// plain wait; the second one's wait makes both ambiguous — the first is
// re-emitted with a new token, so buttons offered before are stale — and
// either ending makes the other plain again.
func TestAmbiguousWaits(t *testing.T) {
	f := manyFolder(t)
	f.apply(oc(event.TurnStart, 1, "a"), oc(event.TurnStart, 2, "b"))
	f.apply(oc(event.Wait, 3, "a", attn("permission"), tool("bash", ""), text("ls")))
	a := f.of("a")
	if a.Status != "waiting" || a.Ambiguous {
		t.Fatalf("a alone waiting: %s ambiguous %v", a.Status, a.Ambiguous)
	}
	out := f.apply(oc(event.Wait, 4, "b", attn("question"), text("which?")))
	if len(out) != 2 {
		t.Fatalf("b's wait emitted %d states, want a's and b's", len(out))
	}
	a2, b := f.of("a"), f.of("b")
	if !a2.Ambiguous || !b.Ambiguous {
		t.Fatalf("two waiting: a %v b %v, want both ambiguous", a2.Ambiguous, b.Ambiguous)
	}
	if a2.Token == a.Token {
		t.Error("a's token did not change when its wait became ambiguous")
	}
	f.apply(oc(event.WaitEnd, 5, "b"))
	if a3, b := f.of("a"), f.of("b"); a3.Ambiguous || b.Ambiguous || b.Status != "working" || a3.Status != "waiting" || a3.Token == a2.Token {
		t.Errorf("b answered: a %s ambiguous %v (token %s), b %s ambiguous %v", a3.Status, a3.Ambiguous, a3.Token, b.Status, b.Ambiguous)
	}
	// A session of another process, or of an agent that runs one session
	// a process, makes nothing ambiguous.
	f.apply(ev(event.Wait, hook, 6, agent("opencode"), sess("c"), pid(301), pane("%8"), attn("permission")))
	f.apply(ev(event.Wait, hook, 7, sess("d"), pid(300), attn("permission")))
	for _, s := range f.States() {
		if s.Ambiguous {
			t.Errorf("%s/%s ambiguous", s.Agent, s.Session)
		}
	}
	// The process exits: every session it hosted is gone, none ambiguous.
	f.apply(oc(event.Wait, 8, "b", attn("permission")))
	if !f.of("a").Ambiguous {
		t.Fatal("a not ambiguous with b waiting again")
	}
	f.apply(&event.Event{V: 1, T: event.At(at(9)), Kind: event.ProcDown, Agent: "opencode", Src: event.SrcProc, PID: 300, ID: "down"})
	for _, s := range []string{"a", "b"} {
		if st := f.of(s); st.Status != "gone" || st.Ambiguous {
			t.Errorf("after the process exited: %s %s ambiguous %v", s, st.Status, st.Ambiguous)
		}
	}
}

// TestAmbiguousRestored: a state file's mark comes back with the state.
func TestAmbiguousRestored(t *testing.T) {
	f := manyFolder(t)
	f.apply(oc(event.Wait, 1, "a", attn("permission")), oc(event.Wait, 2, "b", attn("permission")))
	saved := f.States()
	g := manyFolder(t)
	for i := range saved {
		g.Apply(&saved[i])
	}
	g.apply(oc(event.TurnEnd, 3, "a"))
	if b := g.of("b"); b.Ambiguous || b.Status != "waiting" {
		t.Errorf("restored, a done: b %s ambiguous %v", b.Status, b.Ambiguous)
	}
}

// TestSubAgentWaitEnd: OpenCode says when a sub-agent's prompt was
// answered (permission.replied on the sub-agent's session): the parent
// goes back to what it showed.
func TestSubAgentWaitEnd(t *testing.T) {
	f := manyFolder(t)
	f.apply(oc(event.TurnStart, 1, "p"), oc(event.TurnStart, 2, "p", sub("c")))
	f.apply(oc(event.Wait, 3, "p", sub("c"), attn("permission"), tool("bash", "call1")))
	if s := f.of("p"); s.Status != "waiting" || s.Sub != "c" {
		t.Fatalf("sub-agent's prompt: %s sub %q", s.Status, s.Sub)
	}
	f.apply(oc(event.WaitEnd, 4, "p", sub("c"), reason("denied")))
	if s := f.of("p"); s.Status != "working" || s.Sub != "" {
		t.Errorf("answered: %s sub %q, want working", s.Status, s.Sub)
	}
}
