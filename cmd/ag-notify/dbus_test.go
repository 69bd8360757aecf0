package main

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// dbusArgs keeps tests off any real tmux server: the quiet check asks a
// socket nobody listens on (and so costs what it costs in real life).
func dbusArgs(t testing.TB, extra ...string) []string {
	return append([]string{"--backend", "dbus", "-S", shortDir(t) + "/no-tmux"}, extra...)
}

func TestDBusApprove(t *testing.T) {
	b := startBus(t, "actions,body,inline-reply")
	p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr}, dbusArgs(t)...)
	p.send(state("s1", "working", "", "100.1"), state("s1", "waiting", "permission", "200.2"))

	d := p.next(event.Notify)
	if d.Action != "deliver" || d.Backend != "dbus" || d.Ref != "1" || d.Token != "200.2" || d.Session != "s1" {
		t.Errorf("notify event = %+v; want deliver dbus ref 1 token 200.2", d)
	}
	c := b.waitCalls(t, 1)[0]
	if c.Call != "Notify" || c.Summary != "Claude Code · ag:main" || c.Body != "Needs permission: Bash\nrm -rf build" {
		t.Errorf("Notify = %+v", c)
	}
	want := []string{"default", "Open", "approve", "Approve", "deny", "Deny", "inline-reply", "Reply"}
	if !reflect.DeepEqual(c.Actions, want) {
		t.Errorf("actions = %q; want %q", c.Actions, want)
	}
	if c.Hints["urgency"] != float64(2) {
		t.Errorf("urgency hint = %v; want 2 (critical) for a wait", c.Hints["urgency"])
	}

	b.press(t, "action 1 approve")
	a := p.next(event.Action)
	if a.Action != "approve" || a.Token != "200.2" || a.Pane != "%77" || a.Agent != "claude" || a.Src != event.SrcNotify || a.ID == "" {
		t.Errorf("action event = %+v; want approve, token 200.2, pane %%77", a)
	}
	// The server closed it after the press: the resolution must not close
	// it again.
	p.send(state("s1", "working", "", "300.3"))
	code, rest := p.stop()
	if code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, p.stderr)
	}
	for _, e := range rest {
		if e.Kind == event.Notify {
			t.Errorf("unexpected %s after the press: %+v", e.Action, e)
		}
	}
	if n := len(b.calls(t)); n != 1 {
		t.Errorf("notifyd saw %d calls; want only the Notify", n)
	}
	if s := p.stderr.String(); s != "" {
		t.Errorf("stderr: %s", s)
	}
}

func TestDBusReplyAndRetract(t *testing.T) {
	b := startBus(t, "actions,body,inline-reply")
	p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr}, dbusArgs(t)...)

	// A question: no approve/deny, a reply that becomes an answer.
	p.send(state("q", "waiting", "question", "1.1"))
	p.next(event.Notify)
	c := b.waitCalls(t, 1)[0]
	if want := []string{"default", "Open", "inline-reply", "Reply"}; !reflect.DeepEqual(c.Actions, want) {
		t.Errorf("question actions = %q; want %q", c.Actions, want)
	}
	if c.Hints["x-kde-reply-placeholder-text"] != "Reply to Claude Code" {
		t.Errorf("reply hint = %v", c.Hints["x-kde-reply-placeholder-text"])
	}
	b.press(t, "reply 1 use postgres\x1b[2J\tplease")
	a := p.next(event.Action)
	if a.Action != "answer" || a.Text != "use postgres[2J please" || a.Token != "1.1" {
		t.Errorf("reply action = %+v; want answer with the cleaned text", a)
	}

	// A plan wait replaced by a permission wait: one notification, replaced.
	p.send(state("p", "waiting", "plan", "2.1"), state("p", "waiting", "permission", "2.2"))
	p.next(event.Notify)
	p.next(event.Notify)
	cs := b.waitCalls(t, 3)
	if want := []string{"default", "Open", "plan-approve", "Approve plan", "plan-deny", "Keep planning", "inline-reply", "Reply"}; !reflect.DeepEqual(cs[1].Actions, want) {
		t.Errorf("plan actions = %q; want %q", cs[1].Actions, want)
	}
	if cs[2].Replaces != cs[1].ID {
		t.Errorf("second wait replaces_id = %d; want %d", cs[2].Replaces, cs[1].ID)
	}

	// The wait resolves: CloseNotification, and a retract event.
	p.send(state("p", "working", "", "2.3"))
	r := p.next(event.Notify)
	if r.Action != "retract" || r.Ref != "2" || r.Reason != "resolved" {
		t.Errorf("retract event = %+v", r)
	}
	cs = b.waitCalls(t, 4)
	if cs[3].Call != "CloseNotification" || cs[3].ID != 2 {
		t.Errorf("last call = %+v; want CloseNotification 2", cs[3])
	}
	if code, _ := p.stop(); code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, p.stderr)
	}
}

// TestDBusOptions: a question's options are its buttons, three at most;
// a press answers with that option's label.
func TestDBusOptions(t *testing.T) {
	b := startBus(t, "actions,body")
	p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr}, dbusArgs(t)...)
	q := state("q", "waiting", "question", "1.1")
	q.Options = []string{"Red", "Green", "Blue", "Grey"}
	p.send(q)
	p.next(event.Notify)
	c := b.waitCalls(t, 1)[0]
	if want := []string{"default", "Open", "option-1", "Red", "option-2", "Green", "option-3", "Blue"}; !reflect.DeepEqual(c.Actions, want) {
		t.Errorf("question actions = %q; want %q", c.Actions, want)
	}
	b.press(t, "action 1 option-2")
	if a := p.next(event.Action); a.Action != "answer" || a.Text != "Green" || a.Token != "1.1" {
		t.Errorf("option press = %+v; want answer Green on 1.1", a)
	}
	if code, _ := p.stop(); code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, p.stderr)
	}
}

func TestDBusWithoutInlineReply(t *testing.T) {
	b := startBus(t, "actions,body")
	p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr}, dbusArgs(t)...)
	p.send(state("s", "waiting", "permission", "1.1"))
	p.next(event.Notify)
	c := b.waitCalls(t, 1)[0]
	if slices.Contains(c.Actions, "inline-reply") {
		t.Errorf("actions %q offer a reply the server cannot take", c.Actions)
	}
	p.stop()
}

func TestDBusMarkupEscaped(t *testing.T) {
	b := startBus(t, "actions,body,body-markup")
	p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr}, dbusArgs(t)...)
	e := state("s", "waiting", "permission", "1.1")
	e.Text = `echo "<b>x</b>" && ls`
	p.send(e)
	p.next(event.Notify)
	if c := b.waitCalls(t, 1)[0]; !strings.Contains(c.Body, "echo \"&lt;b&gt;x&lt;/b&gt;\" &amp;&amp; ls") {
		t.Errorf("body %q: markup not escaped", c.Body)
	}
	p.stop()
}

// No bus, and a bus with no notification server: one line each time it
// fails, every event still passes through, exit 0.
func TestDBusUnavailable(t *testing.T) {
	for _, tc := range []struct{ name, addr string }{
		{"no bus", "unix:path=" + t.TempDir() + "/none"},
		{"no server", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := tc.addr
			if addr == "" {
				addr = startBus(t, "").addr
			}
			p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": addr}, dbusArgs(t)...)
			in := []event.Event{state("s", "working", "", "1.1"), state("s", "waiting", "permission", "2.2"), state("s", "working", "", "3.3")}
			p.send(in...)
			code, out := p.stop()
			if code != 0 {
				t.Errorf("exit %d", code)
			}
			if len(out) != len(in) {
				t.Errorf("passed %d events through; want %d", len(out), len(in))
			}
			lines := strings.Split(strings.TrimSpace(p.stderr.String()), "\n")
			// One line: the start-up failure; the delivery that fails the
			// same way is not said again.
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "ag-notify: dbus: ") {
				t.Errorf("stderr = %q; want the start-up failure alone", lines)
			}
		})
	}
}

// TestDBusLatency measures the time from a state event reaching
// ag-notify's stdin to the Notify call reaching the server, over 50 waits:
// with the quiet-while-looking check (one tmux call per new pane) and
// without it (--no-quiet).
func TestDBusLatency(t *testing.T) {
	b := startBus(t, "actions,body,inline-reply")
	for _, tc := range []struct {
		name string
		args []string
	}{{"with the tmux quiet check", nil}, {"--no-quiet", []string{"--no-quiet"}}} {
		p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr}, dbusArgs(t, tc.args...)...)
		const n = 50
		base := len(b.calls(t))
		var lat []time.Duration
		for i := range n {
			sess := tc.name + string(rune('A'+i%26)) + string(rune('a'+i/26))
			p.send(state(sess, "working", "", "1.1")) // made first: a state older than the last is dropped
			w := state(sess, "waiting", "permission", "2.2")
			w.Pane = "%" + string(rune('0'+i%10)) + string(rune('0'+i/10)) // no cached quiet check
			sent := time.Now()
			p.send(w)
			cs := b.waitCalls(t, base+i+1)
			lat = append(lat, time.Unix(0, cs[base+i].TNs).Sub(sent))
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		med, p95 := lat[n/2], lat[n*95/100]
		t.Logf("%s: state on stdin -> Notify at the server, %d waits: median %v, p95 %v, min %v, max %v", tc.name, n, med, p95, lat[0], lat[n-1])
		if med > 100*time.Millisecond {
			t.Errorf("%s: median latency %v over the 100ms budget", tc.name, med)
		}
		p.stop()
	}
}

// BenchmarkDBusNotify is one wait's trip, stdin to the server's Notify.
func BenchmarkDBusNotify(b *testing.B) {
	bs := startBus(b, "actions,body,inline-reply")
	p := start(b, map[string]string{"DBUS_SESSION_BUS_ADDRESS": bs.addr}, dbusArgs(b)...)
	i := 0
	for b.Loop() {
		sess := "b" + strings.Repeat("x", i%3) + string(rune('0'+i%10)) + string(rune('a'+i/10%26)) + string(rune('a'+i/260%26))
		// The working state first: ag-notify drops a state older than the
		// last it acted on, and times are written in milliseconds.
		working := state(sess, "working", "", "1.1")
		w := state(sess, "waiting", "permission", "2.2")
		w.Pane = "%" + sess // no cached quiet check
		p.send(working, w)
		p.next(event.Notify)
		i++
	}
	b.StopTimer()
	p.stop()
}

// The session bus goes away under a running ag-notify (the desktop
// session ended): deliveries fail with a message, and neither connecting
// again nor closing panics on the signal channel godbus has closed.
func TestDBusGone(t *testing.T) {
	b := startBus(t, "actions,body")
	p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr}, dbusArgs(t)...)
	p.send(state("g1", "waiting", "permission", "1.1"))
	p.next(event.Notify)
	b.daemon.Process.Kill()
	failed := func(n int) func() bool {
		return func() bool { return strings.Count(p.stderr.String(), "ag-notify: dbus: ") >= n }
	}
	p.send(state("g2", "waiting", "permission", "1.1"))
	waitFor(t, 5*time.Second, "a failed delivery", failed(1))
	// godbus closes the connection once it notices the bus gone: g3 then
	// dials again (the path that must not close the signal channel twice).
	time.Sleep(200 * time.Millisecond)
	p.send(state("g3", "waiting", "permission", "1.1"))
	// stop lets the worker finish g3 first. Which failure each delivery
	// meets (a write on the dead connection, a refused dial) is a race; a
	// failure the same as the last is said once.
	code, _ := p.stop()
	errs := p.stderr.String()
	if code != 0 || strings.Contains(errs, "panic") {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] == lines[i-1] {
			t.Errorf("a failure said twice in a row:\n%s", errs)
		}
	}
	if n := strings.Count(errs, "ag-notify: dbus: deliver: "); n < 1 || n > 2 {
		t.Errorf("%d failures said, want one or two:\n%s", n, errs)
	}
}

func TestAutoPicksDBus(t *testing.T) {
	b := startBus(t, "actions,body")
	p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr}, "-S", shortDir(t)+"/no-tmux")
	p.send(state("s", "waiting", "question", "1.1"))
	if d := p.next(event.Notify); d.Backend != "dbus" {
		t.Errorf("auto delivered with %q; want dbus when a notification server is on the bus", d.Backend)
	}
	p.stop()
}

// The user dismissed the notification: the wait's end must not report an
// error, whichever arrives first (the Closed signal or the resolution).
func TestDBusDismissed(t *testing.T) {
	b := startBus(t, "actions,body")
	p := start(t, map[string]string{"DBUS_SESSION_BUS_ADDRESS": b.addr}, dbusArgs(t)...)
	for _, sess := range []string{"d1", "d2", "d3"} {
		p.send(state(sess, "waiting", "permission", "1.1"))
		p.next(event.Notify) // written once the server has answered Notify
		b.press(t, "close last 2")
		p.send(state(sess, "working", "", "2.2"))
	}
	code, _ := p.stop()
	if s := p.stderr.String(); code != 0 || s != "" {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, s)
	}
}
