//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/t/fakeapi/anthropic"
)

// notifyWorld is Claude Code with ag's hooks, the login pipeline with
// desktop notifications (ag-tail --follow | ag-fold | ag-notify --backend
// dbus) on a private session bus served by t/notifyd, and ag-keys taking
// ag-notify's output, as `... | ag-notify | ag-keys`.
type notifyWorld struct {
	h    *Harness
	api  *anthropic.Server
	nd   *Notifyd
	tm   *Tmux
	pl   *Pipeline
	keys *Keys
	bin  string
}

func newNotifyWorld(t *testing.T, notifyArgs ...string) *notifyWorld {
	t.Helper()
	bin := Install(t, Claude)
	CheckVersion(t, bin, Claude.Version)
	h := New(t)
	w := &notifyWorld{h: h, bin: bin}
	w.api = h.FakeAnthropic()
	h.ClaudeConfig()
	h.StartDBus()
	w.nd = h.StartNotifyd()
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "claude")
	// StartTmux puts its socket here; ag-notify asks it whether the user
	// is looking at the pane (nobody is attached: never).
	sock := filepath.Join(h.Root, "tmux.sock")
	w.pl = h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"},
		append([]string{"ag-notify", "--backend", "dbus", "-S", sock}, notifyArgs...))
	w.keys = h.StartKeys(w.pl.Out, "-S", sock)
	w.tm = h.StartTmux()
	return w
}

// claude starts Claude Code in new panes, waits for each one's idle
// composer and its session (from the SessionStart hook's state).
func (w *notifyWorld) claude(t *testing.T, names ...string) ([]*Pane, []*Session) {
	t.Helper()
	var panes []*Pane
	for _, name := range names {
		panes = append(panes, w.tm.NewPane(name, w.h.Project, nil, w.bin))
	}
	var sessions []*Session
	for _, p := range panes {
		p.WaitText(90*time.Second, ClaudeIdle)
		st := w.pl.Out.Await(t, "of the session in pane "+p.ID, 30*time.Second, func(e *event.Event) bool {
			return e.Kind == event.State && e.Agent == claude.ID && e.Pane == p.ID && e.Session != ""
		})
		sessions = append(sessions, w.pl.Out.Session(claude.ID, st.Session))
	}
	return panes, sessions
}

// offered is one wait and what ag-notify did about it.
type offered struct {
	wait  event.Event // the waiting state
	note  Call        // notifyd's Notify call for it
	index int         // of that call in notifyd's log
}

// waitNotified types a RUN: prompt, expects working → waiting(permission,
// Bash, cmd), and returns the wait with the one Notify call carrying it.
func (w *notifyWorld) waitNotified(t *testing.T, p *Pane, s *Session, cmd string) offered {
	t.Helper()
	o, ok := w.waitMaybeNotified(t, p, s, cmd)
	if !ok {
		t.Fatalf("notifyd: no Notify for %q within 15s of the waiting state (token %s)", cmd, o.wait.Token)
	}
	return o
}

// waitMaybeNotified is waitNotified that reports a missing notification
// as ok false.
func (w *notifyWorld) waitMaybeNotified(t *testing.T, p *Pane, s *Session, cmd string) (offered, bool) {
	t.Helper()
	from := len(w.nd.Calls())
	p.Type("RUN: " + cmd)
	st := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusWaiting)
	wt := st[1]
	if wt.Attention != event.AttnPermission || wt.Tool != "Bash" || wt.Text != cmd || wt.Token == "" {
		t.Fatalf("waiting state: attention %q tool %q text %q token %q; want permission, Bash, %q, a token",
			wt.Attention, wt.Tool, wt.Text, wt.Token, cmd)
	}
	note, i, ok := w.nd.FindCall(from, 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, cmd)
	})
	return offered{wait: wt, note: note, index: i}, ok
}

// checkOffer asserts the notification is the wait's, with Approve and
// Deny, and that ag-notify recorded delivering it under the wait's token.
func (w *notifyWorld) checkOffer(t *testing.T, o offered, p *Pane) {
	t.Helper()
	n := o.note
	if !strings.HasPrefix(n.Summary, "Claude Code · project") || !strings.HasPrefix(n.Body, "Needs permission: Bash\n") {
		t.Errorf("Notify summary %q body %q; want \"Claude Code · project[:branch]\", \"Needs permission: Bash\\n<command>\"", n.Summary, n.Body)
	}
	for _, pair := range [][2]string{{"approve", "Approve"}, {"deny", "Deny"}} {
		i := slices.Index(n.Actions, pair[0])
		if i < 0 || i%2 != 0 || i+1 >= len(n.Actions) || n.Actions[i+1] != pair[1] {
			t.Errorf("Notify actions %q offer no %s/%s button", n.Actions, pair[0], pair[1])
		}
	}
	if u, _ := n.Hints["urgency"].(float64); u != 2 {
		t.Errorf("Notify urgency hint %v; want 2 (a wait stays until dealt with)", n.Hints["urgency"])
	}
	d := w.pl.Out.Await(t, "notify deliver for token "+o.wait.Token, 10*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Notify && e.Action == "deliver" && e.Token == o.wait.Token
	})
	if d.Backend != "dbus" || d.Ref != strconv.FormatUint(uint64(n.ID), 10) || d.Pane != p.ID || d.Session != o.wait.Session {
		t.Errorf("notify event: backend %q ref %q pane %q session %q; want dbus, %d, %s, %s",
			d.Backend, d.Ref, d.Pane, d.Session, n.ID, p.ID, o.wait.Session)
	}
}

// pressed presses key on the notification once the wait is what ag-keys
// will check against (the state file ag-fold rewrites within 100 ms: no
// person clicks faster), and returns ag-notify's action event and
// ag-keys's keys event for it.
func (w *notifyWorld) pressed(t *testing.T, o offered, p *Pane, key string) (event.Event, event.Event) {
	t.Helper()
	w.h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, p.ID)
		return ok && st.Token == o.wait.Token
	}, "the wait's token "+o.wait.Token)
	w.nd.Press(o.note.ID, key)
	a := w.pl.Out.Await(t, key+" action for token "+o.wait.Token, 10*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Action && e.Token == o.wait.Token
	})
	if a.Action != key || a.Pane != p.ID || a.Agent != claude.ID || a.Session != o.wait.Session || a.Src != event.SrcNotify {
		t.Errorf("action event: action %q pane %q agent %q session %q src %q; want %s, %s, claude, %s, notify",
			a.Action, a.Pane, a.Agent, a.Session, a.Src, key, p.ID, o.wait.Session)
	}
	k := w.keys.Out.WaitFor(t, "keys for token "+o.wait.Token, 10*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Keys && e.Token == o.wait.Token
	})
	return a, k
}

// notifies counts the Notify calls from index from on offering Approve.
func (w *notifyWorld) notifies(from int, body string) int {
	n := 0
	for _, c := range w.nd.Calls()[from:] {
		if c.Call == "Notify" && slices.Contains(c.Buttons(), "approve") && strings.Contains(c.Body, body) {
			n++
		}
	}
	return n
}

func (w *notifyWorld) count(kind, token string) int {
	n := 0
	for _, e := range w.pl.Out.Events() {
		if e.Kind == kind && e.Token == token {
			n++
		}
	}
	return n
}

// TestClaudeNotify answers real Claude Code permission prompts from the
// desktop notification: Approve and Deny pressed on the bus reach the pane
// through ag-keys, and a press that comes after the session moved on is
// refused with nothing typed; the same session's next wait is notified
// again. Deny runs in a second session, so it is exercised whatever the
// notifier's per-session cooldown does to the first one's later waits.
func TestClaudeNotify(t *testing.T) {
	t.Parallel()
	w := newNotifyWorld(t)
	h := w.h
	panes, sessions := w.claude(t, "approve", "deny")

	t.Log("-- approve from the notification: working → waiting → Approve → working → done")
	pa, sa := panes[0], sessions[0]
	approved := filepath.Join(h.Project, "approved.txt")
	o := w.waitNotified(t, pa, sa, "echo approved > approved.txt")
	w.checkOffer(t, o, pa)
	pa.WaitText(10*time.Second, ClaudePermission)
	if _, err := os.Stat(approved); err == nil {
		t.Fatal("approved.txt exists before the command was approved")
	}
	// Left unanswered a while, the CLI reports the same prompt again
	// (Notification permission_prompt, some seconds later): still one
	// notification.
	hold := time.Now()
	w.spoolWaits(t, sa.ID, 2, 30*time.Second)
	t.Logf("   the prompt's second wait hook came %s after the first was seen", time.Since(hold).Round(100*time.Millisecond))
	_, k := w.pressed(t, o, pa, "approve")
	if k.Status != "sent" || k.Action != "approve" || k.Text != "1" || k.Pane != pa.ID || k.Session != sa.ID {
		t.Fatalf("keys event: status %q action %q text %q pane %q session %q reason %q; want sent, approve, \"1\", %s, %s",
			k.Status, k.Action, k.Text, k.Pane, k.Session, k.Reason, pa.ID, sa.ID)
	}
	sa.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(approved); err != nil || string(b) != "approved\n" {
		t.Errorf("the approved command did not run: approved.txt %q, %v", b, err)
	}
	pa.WaitText(10*time.Second, "FAKE-REPLY: the command finished")
	if r := w.nd.WaitClosed(o.note.ID, 10*time.Second); r != 2 {
		t.Logf("note: notification %d closed with reason %d", o.note.ID, r)
	}
	if slices.Contains(w.nd.Live(), o.note.ID) {
		t.Errorf("notification %d is still shown after the wait was answered", o.note.ID)
	}
	// The turn's end is reported too, after ag-notify's debounce: no buttons.
	fin, _ := w.nd.WaitCall(o.index+1, "Notify \"Finished\" for the approved turn", 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.HasPrefix(c.Body, "Finished")
	})
	if slices.Contains(fin.Buttons(), "approve") || slices.Contains(fin.Buttons(), "deny") {
		t.Errorf("the Finished notification offers %q", fin.Actions)
	}
	if n := w.notifies(0, "echo approved"); n != 1 {
		t.Errorf("%d notifications with Approve/Deny for the approved wait; want exactly 1", n)
	}
	if n := w.count(event.Notify, o.wait.Token); n != 1 {
		t.Errorf("%d notify events for token %s; want the one deliver (the server closed it on the press)", n, o.wait.Token)
	}

	t.Log("-- a stale press: refused, nothing typed")
	w.stale(t, o, pa, approved)

	t.Log("-- the session's next wait: notified too, though within the 60 s cooldown")
	again := filepath.Join(h.Project, "again.txt")
	first := o
	o, ok := w.waitMaybeNotified(t, pa, sa, "echo again > again.txt")
	pa.WaitText(10*time.Second, ClaudePermission)
	if ok {
		w.checkOffer(t, o, pa)
		if _, k := w.pressed(t, o, pa, "approve"); k.Status != "sent" || k.Text != "1" {
			t.Fatalf("keys event for the second wait: status %q text %q reason %q; want sent \"1\"", k.Status, k.Text, k.Reason)
		}
	} else {
		t.Errorf("the session's second permission wait (%s after the first was approved from its notification) "+
			"was not notified: ag-notify's per-session cooldown (--cooldown, 60s) holds back a new wait even when "+
			"the user answered the last one from its buttons; the user is never told the agent is blocked",
			o.wait.T.Sub(first.wait.T.Time).Round(time.Second))
		pa.Keys("1") // answer in the pane, to go on
	}
	sa.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(again); err != nil || string(b) != "again\n" {
		t.Errorf("the second approved command did not run: again.txt %q, %v", b, err)
	}

	t.Log("-- deny from the notification: working → waiting → Deny → idle, the command does not run")
	pd, sd := panes[1], sessions[1]
	denied := filepath.Join(h.Project, "denied.txt")
	o = w.waitNotified(t, pd, sd, "echo denied > denied.txt")
	w.checkOffer(t, o, pd)
	pd.WaitText(10*time.Second, ClaudePermission)
	_, k = w.pressed(t, o, pd, "deny")
	if k.Status != "sent" || k.Action != "deny" || k.Text != "Escape" || k.Pane != pd.ID {
		t.Fatalf("keys event: status %q action %q text %q pane %q reason %q; want sent, deny, \"Escape\", %s",
			k.Status, k.Action, k.Text, k.Pane, k.Reason, pd.ID)
	}
	seen := len(sd.History())
	sd.WaitFor(t, "idle after the deny", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusIdle })
	if got := sd.History()[seen:]; !slices.Equal(got, []string{event.StatusIdle}) {
		// The fold passes through working when the transcript's rejected
		// tool_result (tool.end, reason error) lands before its interrupt.
		t.Errorf("after Deny the status went waiting → %s; want waiting → idle", strings.Join(got, " → "))
	}
	pd.WaitText(10*time.Second, ClaudeDenied)
	if _, err := os.Stat(denied); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}
	w.nd.WaitClosed(o.note.ID, 10*time.Second)
	if slices.Contains(w.nd.Live(), o.note.ID) {
		t.Errorf("notification %d is still shown after the wait was denied", o.note.ID)
	}
	if n := w.notifies(0, "echo denied"); n != 1 {
		t.Errorf("%d notifications with Approve/Deny for the denied wait; want exactly 1", n)
	}

	var tools []string
	for _, r := range w.api.Requests() {
		if strings.HasPrefix(r.Reply, "tool:") {
			tools = append(tools, r.Reply)
		}
	}
	if got := strings.Join(tools, "; "); got != "tool:Bash echo approved > approved.txt; tool:Bash echo again > again.txt; tool:Bash echo denied > denied.txt" {
		t.Errorf("tool calls %q", got)
	}
	if bad := append(w.pl.Out.Bad(), w.keys.Out.Bad()...); len(bad) > 0 {
		t.Errorf("lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
	if b, _ := os.ReadFile(w.pl.Stages[2].Stderr); len(b) > 0 {
		t.Errorf("ag-notify wrote to stderr:\n%s", b)
	}
}

// stale presses the answered wait's Approve again, two ways, once its
// session has moved on (done): the same notification's button reported on
// the bus once more, and an action event quoting the old token (a second
// backend's late press). ag-keys must refuse, and nothing reach the pane.
func (w *notifyWorld) stale(t *testing.T, o offered, p *Pane, file string) {
	t.Helper()
	w.h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, p.ID)
		return ok && st.Status == event.StatusDone && st.Token != o.wait.Token
	}, "the approved session done under a new token")
	// Let the Finished notification and the screen settle first.
	time.Sleep(time.Second)
	screen := paneCapture(w.tm, p)
	requests := len(w.api.Requests())
	keys := len(w.keys.Out.Events())

	w.nd.EmitAction(o.note.ID, "approve")
	a := event.New(event.Action, time.Now(), claude.ID, o.wait.Session)
	a.Src, a.Pane, a.Action, a.Token, a.Attention, a.Backend = event.SrcNotify, p.ID, "approve", o.wait.Token, o.wait.Attention, "ntfy"
	a.ID = event.MakeID(event.SrcNotify, "e2e late press", o.wait.Session, o.wait.Token)
	w.keys.Inject(t, event.Marshal(&a))

	k := w.keys.Out.WaitFor(t, "keys for the stale press", 10*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Keys
	})
	if k.Status != "refused" || k.Token != o.wait.Token || !strings.HasPrefix(k.Reason, "stale: the session moved on") || k.Text != "" {
		t.Errorf("stale press: keys status %q token %q reason %q text %q; want refused, %s, \"stale: the session moved on ...\", nothing typed",
			k.Status, k.Token, k.Reason, k.Text, o.wait.Token)
	}
	// Whatever else might come of the two presses has had time to.
	time.Sleep(2 * time.Second)
	if n := w.count(event.Action, o.wait.Token); n != 1 {
		t.Errorf("ag-notify wrote %d action events for token %s; want 1: the replayed click on the closed notification must be ignored", n, o.wait.Token)
	}
	if n := len(w.keys.Out.Events()); n != keys+1 {
		t.Errorf("ag-keys wrote %d keys events after the stale presses; want 1 (the refusal):\n%s", n-keys, w.keys.Out.Text())
	}
	// (Claude Code 2.1.332 takes its "tmux focus-events off" tip down by
	// itself a few seconds after it shows: not a change of ours.)
	if now := paneCapture(w.tm, p); withoutTips(now) != withoutTips(screen) {
		t.Errorf("the pane changed after the stale presses:\nbefore:\n%s\nafter:\n%s", screen, now)
	}
	if n := len(w.api.Requests()); n != requests {
		t.Errorf("the CLI sent %d more API requests after the stale presses", n-requests)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "approved\n" {
		t.Errorf("%s after the stale presses: %q, %v", file, b, err)
	}
}

// TestClaudeNotifyForgedClick: a click is only a click when the
// notification server reports it. Any other client on the session bus can
// put an ActionInvoked signal on it (ids are small counters); ag-notify must
// not turn that into an Approve, and the real button must still work.
func TestClaudeNotifyForgedClick(t *testing.T) {
	t.Parallel()
	w := newNotifyWorld(t)
	panes, sessions := w.claude(t, "forged")
	p, s := panes[0], sessions[0]
	file := filepath.Join(w.h.Project, "forged.txt")
	o := w.waitNotified(t, p, s, "echo forged > forged.txt")
	p.WaitText(10*time.Second, ClaudePermission)
	// Everything a real click needs is in place, so the forged one would
	// go through if ag-notify took it.
	w.h.WaitState(10*time.Second, func(states []event.Event) bool {
		st, ok := state.ForPane(states, p.ID)
		return ok && st.Token == o.wait.Token
	}, "the wait's token "+o.wait.Token)

	w.nd.EmitAction(o.note.ID, "approve") // from the test's connection, not notifyd's
	time.Sleep(2 * time.Second)
	if n := w.count(event.Action, o.wait.Token); n != 0 {
		var sent []string
		for _, e := range w.keys.Out.Events() {
			sent = append(sent, e.Status+" "+e.Text)
		}
		_, err := os.Stat(file)
		t.Fatalf("an ActionInvoked signal from a bus client that is not the notification server became %d action event(s); "+
			"ag-keys: %q; the command ran: %v. ag-notify must take clicks only from org.freedesktop.Notifications' owner "+
			"(a sender match rule and a check of the signal's sender)", n, sent, err == nil)
	}
	if !strings.Contains(p.Capture(), ClaudePermission) {
		t.Errorf("the permission prompt is gone after the forged click")
	}
	_, k := w.pressed(t, o, p, "approve")
	if k.Status != "sent" || k.Text != "1" {
		t.Fatalf("the real Approve after the forged one: keys status %q text %q reason %q; want sent \"1\"", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(file); err != nil || string(b) != "forged\n" {
		t.Errorf("the approved command did not run: %q, %v", b, err)
	}
}

// spoolWaits waits until the spool holds n hook wait events of session and
// returns them.
func (w *notifyWorld) spoolWaits(t *testing.T, session string, n int, timeout time.Duration) []event.Event {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b, _ := os.ReadFile(filepath.Join(w.h.AGDir, "spool.ndjson"))
		var found []event.Event
		for _, line := range strings.Split(string(b), "\n") {
			var e event.Event
			if event.Decode([]byte(line), &e) == nil && e.Kind == event.Wait && e.Src == event.SrcHook && e.Session == session {
				found = append(found, e)
			}
		}
		if len(found) >= n {
			return found
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spool holds %d hook wait events of session %s after %s; want %d", len(found), session, timeout, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// withoutTips is a screen without the tips an agent shows and takes down
// on its own: Claude Code 2.1.332's "tmux focus-events off" line, and the
// "· ← for agents" its footer drops a while after a turn.
func withoutTips(screen string) string {
	var keep []string
	for _, l := range strings.Split(screen, "\n") {
		if !strings.Contains(l, "focus-events off") {
			keep = append(keep, strings.TrimRight(strings.TrimSuffix(strings.TrimRight(l, " "), " · ← for agents"), " "))
		}
	}
	return strings.Join(keep, "\n")
}
