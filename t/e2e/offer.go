//go:build e2e

package e2e

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// notifyRig is what a notification test of one agent runs: the harness,
// notifyd on the private bus, the login pipeline ending in ag-notify, and
// ag-keys reading its output.
type notifyRig struct {
	h    *Harness
	nd   *Notifyd
	pl   *Pipeline
	keys *Keys
}

// offer waits for the Notify call (after call index from) of the waiting
// state wt in pane p, and checks it: summary and body prefixes, Approve
// and Deny buttons, ag-notify's deliver event under the wait's token.
func (r notifyRig) offer(t *testing.T, from int, wt event.Event, p *Pane, summary, body, cmd string) offered {
	t.Helper()
	return r.offerWith(t, from, wt, p, summary, body, cmd, [2]string{"approve", "Approve"}, [2]string{"deny", "Deny"})
}

// offerWith is offer with the buttons (action key, label) the wait must
// have.
func (r notifyRig) offerWith(t *testing.T, from int, wt event.Event, p *Pane, summary, body, cmd string, buttons ...[2]string) offered {
	t.Helper()
	n, i := r.nd.WaitCall(from, "Notify for "+cmd, 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, cmd)
	})
	if !strings.HasPrefix(n.Summary, summary) || !strings.HasPrefix(n.Body, body) {
		t.Errorf("Notify summary %q body %q; want %q…, %q…", n.Summary, n.Body, summary, body)
	}
	for _, pair := range buttons {
		k := slices.Index(n.Actions, pair[0])
		if k < 0 || k%2 != 0 || k+1 >= len(n.Actions) || n.Actions[k+1] != pair[1] {
			t.Errorf("Notify actions %q offer no %s/%s button", n.Actions, pair[0], pair[1])
		}
	}
	d := r.pl.Out.Await(t, "notify deliver for token "+wt.Token, 10*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Notify && e.Action == "deliver" && e.Token == wt.Token
	})
	if d.Backend != "dbus" || d.Ref != strconv.FormatUint(uint64(n.ID), 10) || d.Pane != p.ID || d.Agent != wt.Agent {
		t.Errorf("notify event: backend %q ref %q pane %q agent %q; want dbus, %d, %s, %s", d.Backend, d.Ref, d.Pane, d.Agent, n.ID, p.ID, wt.Agent)
	}
	return offered{wait: wt, note: n, index: i}
}

// press presses key on the notification once ag-keys can check the wait's
// token in the state file, and returns ag-keys's keys event for it.
func (r notifyRig) press(t *testing.T, o offered, p *Pane, key string) event.Event {
	t.Helper()
	return r.act(t, o, p, key, func() { r.nd.Press(o.note.ID, key) })
}

// pressOption presses the button of the question's option n (from 1),
// which must read label, and returns ag-keys's keys event for the answer
// it makes: the option's label.
func (r notifyRig) pressOption(t *testing.T, o offered, p *Pane, n int, label string) event.Event {
	t.Helper()
	key := "option-" + strconv.Itoa(n)
	if k := slices.Index(o.note.Actions, key); k < 0 || k%2 != 0 || k+1 >= len(o.note.Actions) || o.note.Actions[k+1] != label {
		t.Errorf("Notify actions %q offer no %s/%s button", o.note.Actions, key, label)
	}
	return r.act(t, o, p, "answer", func() { r.nd.Press(o.note.ID, key) })
}

// settledWait is pane p's waiting state once the state file has held its
// token for a second: an agent may follow a call's wait with a
// notification of its own (Droid), which moves the token on; ag-notify
// delivers the notification again under the newer one.
func settledWait(t *testing.T, h *Harness, p *Pane) event.Event {
	t.Helper()
	var last event.Event
	since := time.Now()
	h.WaitState(15*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, p.ID)
		if !ok || st.Status != event.StatusWaiting {
			return false
		}
		if st.Token != last.Token {
			last, since = st, time.Now()
		}
		return time.Since(since) >= time.Second
	}, "a settled wait in "+p.ID)
	return last
}

// reply types text as the notification's inline reply, which ag-notify
// turns into action (answer on a question, reply otherwise), and returns
// ag-keys's keys event for it.
func (r notifyRig) reply(t *testing.T, o offered, p *Pane, action, text string) event.Event {
	t.Helper()
	return r.act(t, o, p, action, func() { r.nd.Reply(o.note.ID, text) })
}

func (r notifyRig) act(t *testing.T, o offered, p *Pane, key string, do func()) event.Event {
	t.Helper()
	r.h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, p.ID)
		return ok && st.Token == o.wait.Token
	}, "the wait's token "+o.wait.Token)
	do()
	a := r.pl.Out.Await(t, key+" action for token "+o.wait.Token, 10*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Action && e.Token == o.wait.Token
	})
	if a.Action != key || a.Pane != p.ID || a.Agent != o.wait.Agent || a.Session != o.wait.Session {
		t.Errorf("action event: action %q pane %q agent %q session %q; want %s, %s, %s, %s",
			a.Action, a.Pane, a.Agent, a.Session, key, p.ID, o.wait.Agent, o.wait.Session)
	}
	return r.keys.Out.WaitFor(t, "keys for token "+o.wait.Token, 10*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Keys && e.Token == o.wait.Token
	})
}

// notifies counts the Notify calls with Approve/Deny from call index from
// whose body holds body.
func (r notifyRig) notifies(from int, body string) int {
	n := 0
	for _, c := range r.nd.Calls()[from:] {
		if c.Call == "Notify" && slices.Contains(c.Buttons(), "approve") && strings.Contains(c.Body, body) {
			n++
		}
	}
	return n
}

// latencies summarises measured delays: the median and one log line.
func latencies(what string, lat []time.Duration) (time.Duration, string) {
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	n := len(sorted)
	median := (sorted[(n-1)/2] + sorted[n/2]) / 2
	var all []string
	for _, d := range lat {
		all = append(all, strconv.FormatFloat(ms(d), 'f', 1, 64))
	}
	return median, what + ", " + strconv.Itoa(n) + " waits: median " + strconv.FormatFloat(ms(median), 'f', 1, 64) +
		" ms, min " + strconv.FormatFloat(ms(sorted[0]), 'f', 1, 64) + " ms, max " + strconv.FormatFloat(ms(sorted[n-1]), 'f', 1, 64) +
		" ms (all, ms: " + strings.Join(all, " ") + ")"
}
