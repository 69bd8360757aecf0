//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/opencode"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// hasButtons says whether a Notify call offers Approve and Deny.
func hasButtons(c Call) bool {
	return slices.Contains(c.Actions, "approve") && slices.Contains(c.Actions, "deny")
}

// TestOpenCode runs the real OpenCode 1.18.33 in tmux with ag's plugin
// installed by ag-hook and the pipeline (ag-tail --follow | ag-fold |
// ag-notify on a private D-Bus, no cooldown: every wait is told) watching: a plain turn, the meters from
// opencode.db, a command approved and one denied with ag-keys, a
// sub-agent's command denied (its dialog asks a reason first), two
// sessions of one server waiting at once (ambiguous: no buttons, ag-keys
// refuses), and /exit making every session of the server gone.
func TestOpenCode(t *testing.T) {
	t.Parallel()
	bin := Install(t, OpenCode)
	CheckVersion(t, bin, OpenCode.Version)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	cfg := h.OpenCodeConfig(api)
	out := h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "opencode")
	if !strings.Contains(out, "restart OpenCode") {
		t.Errorf("install says nothing of a restart:\n%s", out)
	}
	plugin := filepath.Join(cfg, "plugins", "ag.js")
	if st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "opencode"); !strings.HasPrefix(st, "opencode: installed in ") || !strings.Contains(st, filepath.Base(filepath.Dir(plugin))+"/ag.js") {
		t.Errorf("ag-hook status --agent opencode: %q", st)
	}
	h.StartDBus()
	nd := h.StartNotifyd()
	sock := filepath.Join(h.Root, "tmux.sock")
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"}, []string{"ag-notify", "--backend", "dbus", "--cooldown", "0s", "-S", sock})
	r := notifyRig{h: h, nd: nd, pl: pl, keys: h.StartKeys(pl.Out, "-S", sock)}
	tm := h.StartTmux()
	port := freePort(t)
	t0 := time.Now()
	pane := h.StartOpenCode(tm, "opencode", bin, port)
	t.Logf("opencode composer after %s", time.Since(t0).Round(time.Millisecond))
	s := pl.Out.Session(opencode.ID, "")
	detectAgent(t, h, tm, pane, opencode.ID)
	keys := func(action string) (string, int) {
		return h.runCode(30*time.Second, Bin(t, "ag-keys"), action, "--pane", pane.ID, "-S", sock)
	}

	t.Log("-- plain prompt: working → done")
	pane.Type("say hello SLOW:2s")
	w := s.Expect(t, 60*time.Second, event.StatusWorking)[0]
	s.Expect(t, 60*time.Second, event.StatusDone)
	pane.WaitText(10*time.Second, "FAKE-REPLY: say hello")
	if w.Pane != pane.ID || w.PID != pane.PID || w.Prompt != "say hello SLOW:2s" || w.Cwd != h.Project {
		t.Errorf("working state: pane %q pid %d prompt %q cwd %q; want %s, %d (the one native process), the prompt, %s",
			w.Pane, w.PID, w.Prompt, w.Cwd, pane.ID, pane.PID, h.Project)
	}

	t.Log("-- the API refuses: working → failed, with what OpenCode was told")
	pane.Type("FAIL: quota gone")
	f := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusFailed)[1]
	if !strings.Contains(f.Text, "quota gone") {
		t.Errorf("failed state: text %q reason %q, want the API's message", f.Text, f.Reason)
	}
	// The idle OpenCode says after the error is no finished turn: the
	// next Expect (from failed straight to working) fails on a "done".

	t.Log("-- meters from opencode.db: model, tokens, context against the declared window")
	m := pl.Out.Await(t, "with meters", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Model != "" && e.Tokens != nil && e.Context != nil && e.Context.LeftPct != nil
	})
	if m.Model != "fake/fake-model" || m.Context.Size != 128000 || m.Context.Used <= 0 || m.Tokens.In <= 0 || m.CostUSD == nil {
		t.Errorf("meters: model %q context %+v tokens %+v cost %v", m.Model, *m.Context, *m.Tokens, m.CostUSD)
	}

	t.Log("-- approved with ag-keys: waiting(permission, bash) → Enter → working → done, the command ran")
	marker := filepath.Join(h.Project, "marker.txt")
	from := len(nd.Calls())
	pane.Type("RUN: echo marker > marker.txt")
	wt := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if wt.Attention != event.AttnPermission || wt.Tool != "bash" || wt.Text != "echo marker > marker.txt" || wt.Ambiguous {
		t.Errorf("waiting state: attention %q tool %q text %q ambiguous %v", wt.Attention, wt.Tool, wt.Text, wt.Ambiguous)
	}
	pane.WaitText(10*time.Second, OpenCodePermission)
	note, _ := nd.WaitCall(from, "Notify for the wait", 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, "echo marker")
	})
	if !hasButtons(note) {
		t.Errorf("the one wait's notification offers no Approve/Deny: %q", note.Actions)
	}
	latency := []time.Duration{note.Time().Sub(wt.T.Time)}
	time.Sleep(2 * time.Second) // OpenCode's dialog takes keys a moment after it is drawn (more on a loaded machine)
	if out, code := keys("approve"); code != 0 {
		t.Fatalf("ag-keys approve: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(marker); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: %q %v", b, err)
	}

	t.Log("-- denied with ag-keys (Escape): waiting → done, the command did not run")
	from = len(nd.Calls())
	pane.Type("RUN: echo denied > denied.txt")
	wt = s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	pane.WaitText(10*time.Second, OpenCodePermission)
	if note, _, ok := nd.FindCall(from, 15*time.Second, func(c Call) bool { return c.Call == "Notify" && strings.Contains(c.Body, "echo denied") }); ok {
		latency = append(latency, note.Time().Sub(wt.T.Time))
	}
	time.Sleep(2 * time.Second)
	if out, code := keys("deny"); code != 0 {
		t.Fatalf("ag-keys deny: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}

	t.Log("-- a sub-agent's command, denied with ag-keys (Escape, then Enter for no reason)")
	time.Sleep(2 * time.Second) // the composer takes keys again a moment after a rejection
	pane.Type(`CALL: task {"description":"sub job","prompt":"RUN: echo sub > sub.txt","subagent_type":"general"}`)
	wt = s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if wt.Sub == "" || wt.Sub == s.ID || wt.Tool != "bash" || wt.Text != "echo sub > sub.txt" {
		t.Errorf("the sub-agent's wait: sub %q tool %q text %q; want the sub-agent's session, bash, the command", wt.Sub, wt.Tool, wt.Text)
	}
	pane.WaitText(10*time.Second, OpenCodePermission)
	time.Sleep(2 * time.Second)
	if out, code := keys("deny"); code != 0 || !strings.Contains(out, "Enter once reject-reason shows") {
		t.Fatalf("ag-keys deny (sub-agent): %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if _, err := os.Stat(filepath.Join(h.Project, "sub.txt")); err == nil {
		t.Error("sub.txt exists: the sub-agent's denied command ran")
	}
	// The hooks are faster than the TUI's redraw on a busy machine.
	for end := time.Now().Add(10 * time.Second); strings.Contains(pane.Capture(), OpenCodeReject); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			t.Errorf("the reason dialog is still up:\n%s", lastLines(pane.Capture(), 12))
			break
		}
	}

	t.Log("-- the question tool: waiting(question) with its options → the second's button: 2 → answered → the turn ends; again → Escape dismisses it → the turn ends")
	time.Sleep(2 * time.Second)
	from = len(nd.Calls())
	const ask = `CALL: question {"questions":[{"question":"Which file first?","header":"File","options":[{"label":"a.go","description":"the first"},{"label":"b.go","description":"the second"}]}]}`
	pane.Type(ask)
	q := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if q.Attention != event.AttnQuestion || q.Text != "Which file first?" || !slices.Equal(q.Options, []string{"a.go", "b.go"}) {
		t.Errorf("question wait: attention %q text %q options %q", q.Attention, q.Text, q.Options)
	}
	if r := panesOf(t, h, pane); r != "question" {
		t.Errorf("the pane rules read the picker as %q", r)
	}
	if out, code := keys("approve"); code != 1 {
		t.Errorf("ag-keys approve on a question: exit %d %s", code, out)
	}
	o := r.offerWith(t, from, q, pane, "OpenCode · project", "Has a question", "Which file first?")
	if slices.Contains(o.note.Actions, "inline-reply") {
		t.Errorf("question Notify actions %q: a reply OpenCode's question cannot take", o.note.Actions)
	}
	if k := r.pressOption(t, o, pane, 2, "b.go"); k.Status != "sent" || k.Text != "2" {
		t.Fatalf("the option's button: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	// OpenCode's record of the answer: the question, the option under it.
	answered := regexp.MustCompile(`Which file first\?\s*\n\s*┃?\s*b\.go\s*\n`)
	for end := time.Now().Add(10 * time.Second); !answered.MatchString(pane.Capture()); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no answer b.go on the pane:\n%s", lastLines(pane.Capture(), 20))
		}
	}
	time.Sleep(2 * time.Second)
	pane.Type(ask)
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)
	time.Sleep(2 * time.Second)
	pane.Keys("Escape")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)

	t.Log("-- two sessions of one server waiting: ambiguous, no buttons, ag-keys refuses")
	time.Sleep(2 * time.Second)
	oc := OpenCodeAPI{URL: "http://127.0.0.1:" + strconv.Itoa(port)}
	bg := oc.NewSession(t)
	s2 := pl.Out.Session(opencode.ID, bg)
	from = len(nd.Calls())
	oc.Prompt(t, bg, "RUN: echo bg > bg.txt")
	w2 := s2.WaitFor(t, "waiting", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
	if w2.Ambiguous || w2.Pane != pane.ID || w2.PID != pane.PID {
		t.Errorf("the second session's wait: ambiguous %v pane %q pid %d", w2.Ambiguous, w2.Pane, w2.PID)
	}
	pane.Type("RUN: echo fg > fg.txt")
	wt = s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if !wt.Ambiguous {
		wt = s.WaitFor(t, "ambiguous", 10*time.Second, func(e *event.Event) bool { return e.Ambiguous })
	}
	// The watcher went past the second session's state while it read the
	// first's: the state file says what both are now.
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		n := 0
		for _, st := range states {
			if (st.Session == s.ID || st.Session == bg) && st.Status == event.StatusWaiting && st.Ambiguous {
				n++
			}
		}
		return n == 2
	}, "both sessions waiting, ambiguous")
	fg, _ := nd.WaitCall(from, "Notify for the second wait", 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, "echo fg")
	})
	if hasButtons(fg) {
		t.Errorf("an ambiguous wait's notification offers buttons: %q", fg.Actions)
	}
	if _, _, ok := nd.FindCall(from, 10*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, "echo bg") && !hasButtons(c)
	}); !ok {
		t.Error("the first wait's notification was not replaced by one without buttons")
	}
	pane.WaitText(10*time.Second, OpenCodePermission)
	if out, code := keys("approve"); code != 1 || !strings.Contains(out, "waiting too") {
		t.Errorf("ag-keys approve on an ambiguous wait: exit %d %s", code, out)
	}
	time.Sleep(2 * time.Second)
	pane.Keys("Escape") // the pane's own dialog: the TUI session's
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	h.WaitState(10*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == bg {
				return st.Status == event.StatusWaiting && !st.Ambiguous
			}
		}
		return false
	}, "the second session waiting alone, no longer ambiguous")
	for _, f := range []string{"fg.txt", "bg.txt"} {
		if _, err := os.Stat(filepath.Join(h.Project, f)); err == nil {
			t.Errorf("%s exists: nothing approved it", f)
		}
	}

	t.Log("-- /exit: every session the server hosted is gone")
	time.Sleep(2 * time.Second) // the composer takes keys again a moment after a rejection
	pane.Type("/exit")
	h.WaitState(60*time.Second, func(states []event.Event) bool {
		n := 0
		for _, st := range states {
			if (st.Session == s.ID || st.Session == bg) && st.Status == event.StatusGone {
				n++
			}
		}
		return n == 2
	}, "both sessions gone")
	for _, l := range latency {
		t.Logf("opencode: hook → Notify on the session bus: %s", l.Round(100*time.Microsecond))
	}
	if bad := pl.Out.Bad(); len(bad) > 0 {
		t.Errorf("ag-fold wrote lines that are not events:\n%s", strings.Join(bad, "\n"))
	}
}
