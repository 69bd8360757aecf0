//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/omp"
	"github.com/agwatch/ag/providers/pi"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// TestPi runs the real Pi 0.73.1 with ag's extension installed by ag-hook
// and the login pipeline watching: a plain turn, a tool turn that runs at
// once (Pi never waits for permission) and the meters from its session
// file, ag-keys refusing approve, /new (the old session gone, the new one
// followed in the same process) and /quit (gone).
func TestPi(t *testing.T) {
	t.Parallel()
	bin := Install(t, Pi)
	CheckVersion(t, bin, Pi.Version)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	dir := h.PiConfig(api)
	if out := h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "pi"); !strings.Contains(out, "restart Pi") {
		t.Errorf("install says nothing of a restart:\n%s", out)
	}
	if st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "pi"); !strings.HasPrefix(st, "pi: installed in ") || !strings.HasSuffix(strings.TrimSpace(st), filepath.Base(dir)+"/extensions/ag.js") {
		t.Errorf("ag-hook status --agent pi: %q", st)
	}
	h.StartDBus()
	nd := h.StartNotifyd()
	sock := filepath.Join(h.Root, "tmux.sock")
	// No debounce: Pi has no waits, its notification is "finished".
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"}, []string{"ag-notify", "--backend", "dbus", "--debounce", "0s", "-S", sock})
	tm := h.StartTmux()
	pane := h.StartPi(tm, "pi", bin)
	s := pl.Out.Session(pi.ID, "")
	detectAgent(t, h, tm, pane, pi.ID)

	t.Log("-- plain prompt: working → done")
	pane.Type("say hello SLOW:2s")
	w := s.Expect(t, 60*time.Second, event.StatusWorking)[0]
	d := s.Expect(t, 60*time.Second, event.StatusDone)[0]
	if note, _, ok := nd.FindCall(0, 15*time.Second, func(c Call) bool { return c.Call == "Notify" && strings.Contains(c.Body, "say hello") }); ok {
		t.Logf("pi: hook (agent_end) → Notify \"Finished\" on the session bus: %s", note.Time().Sub(d.T.Time).Round(100*time.Microsecond))
	} else {
		t.Error("no Finished notification for the turn")
	}
	pane.WaitText(10*time.Second, "FAKE-REPLY: say hello")
	if w.Pane != pane.ID || w.PID != pane.PID || w.Prompt != "say hello SLOW:2s" || !strings.HasPrefix(w.Transcript, filepath.Join(dir, "sessions")+"/") {
		t.Errorf("working state: pane %q pid %d prompt %q transcript %q", w.Pane, w.PID, w.Prompt, w.Transcript)
	}

	t.Log("-- the API refuses: working → failed")
	pane.Type("FAIL: quota gone")
	if f := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusFailed)[1]; !strings.Contains(f.Text, "quota gone") {
		t.Errorf("failed state: text %q reason %q, want the API's message", f.Text, f.Reason)
	}

	t.Log("-- a tool runs at once: working (bash) → done, never waiting")
	pane.Type("RUN: echo marker > marker.txt")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "marker.txt")); err != nil || string(b) != "marker\n" {
		t.Errorf("the command did not run: %q %v", b, err)
	}
	for _, st := range s.History() {
		if st == event.StatusWaiting {
			t.Errorf("a Pi session waited: %v", s.History())
		}
	}
	m := pl.Out.Await(t, "with meters", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Model != "" && e.Context != nil && e.Context.LeftPct != nil && e.Tokens != nil
	})
	if m.Model != "fake-model" || m.Context.Size != 128000 || m.Context.Used <= 0 || m.Tokens.In <= 0 {
		t.Errorf("meters: model %q context %+v tokens %+v", m.Model, *m.Context, *m.Tokens)
	}
	if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "approve", "--pane", pane.ID, "-S", tm.Socket); code != 1 {
		t.Errorf("ag-keys approve on a Pi pane: exit %d %s", code, out)
	}

	t.Log("-- /new: the old session gone, the new one followed in the same process")
	old := s.ID
	pane.Type("/new")
	next := pl.Out.Await(t, "of the new session", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == pi.ID && e.Session != "" && e.Session != old
	})
	h.WaitState(30*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == old && st.Status != event.StatusGone {
				return false
			}
		}
		return true
	}, "the old session gone")
	s2 := pl.Out.Session(pi.ID, next.Session)
	pane.Type("say again")
	s2.WaitFor(t, "done", 60*time.Second, func(e *event.Event) bool {
		return e.Status == event.StatusDone && e.Pane == pane.ID && e.PID == pane.PID
	})

	t.Log("-- /quit: gone")
	pane.Type("/quit")
	s2.WaitFor(t, "gone", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusGone })
}

// TestOmp runs the real omp 18.2.3 (asking before every tool call): a
// plain turn, a command approved (Enter) and one denied (Escape) — the
// waits are permission waits with the tool —, the meters, /new changing
// the session in place, and /exit.
func TestOmp(t *testing.T) {
	t.Parallel()
	bin := Install(t, Omp)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	dir := h.OmpConfig(api, bin)
	if v, want := h.Run(60*time.Second, bin, "--version"), Installed(bin, Omp.Version); !strings.Contains(v, want) {
		t.Fatalf("omp --version: %q, want %s", v, want)
	}
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "omp")
	if st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "omp"); !strings.HasPrefix(st, "omp: installed in ") || !strings.HasSuffix(strings.TrimSpace(st), filepath.Base(dir)+"/extensions/ag.js") {
		t.Errorf("ag-hook status --agent omp: %q", st)
	}
	h.StartDBus()
	nd := h.StartNotifyd()
	sock := filepath.Join(h.Root, "tmux.sock")
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"}, []string{"ag-notify", "--backend", "dbus", "--cooldown", "0s", "-S", sock})
	r := notifyRig{h: h, nd: nd, pl: pl, keys: h.StartKeys(pl.Out, "-S", sock)}
	tm := h.StartTmux()
	pane := h.StartOmp(tm, "omp", bin)
	// omp migrated the models.json to models.yml, the only file it reads
	// from now on: without the JSON the window must come from omp's YAML.
	if _, err := os.Stat(filepath.Join(dir, "models.yml")); err != nil {
		t.Fatalf("omp wrote no models.yml: %v", err)
	}
	os.Remove(filepath.Join(dir, "models.json"))
	s := pl.Out.Session(omp.ID, "")
	if up := detectAgent(t, h, tm, pane, omp.ID); !strings.HasSuffix(up.Argv0, "bun") {
		t.Errorf("omp's argv0 %q: want bun (npm's shim runs bun …/.bin/omp)", up.Argv0)
	}

	t.Log("-- plain prompt: working → done")
	pane.Type("say hello SLOW:2s")
	w := s.Expect(t, 60*time.Second, event.StatusWorking)[0]
	s.Expect(t, 60*time.Second, event.StatusDone)
	if w.Pane != pane.ID || w.PID != pane.PID {
		t.Errorf("working state: pane %q pid %d; want %s %d (bun running omp)", w.Pane, w.PID, pane.ID, pane.PID)
	}

	t.Log("-- approved: waiting(permission, bash) → Enter → working → done, the command ran")
	from := len(nd.Calls())
	pane.Type("RUN: echo marker > marker.txt")
	wt := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	note, _ := nd.WaitCall(from, "Notify for the wait", 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, "echo marker")
	})
	if !hasButtons(note) {
		t.Errorf("omp's wait offers no Approve/Deny: %q", note.Actions)
	}
	t.Logf("omp: hook → Notify on the session bus: %s", note.Time().Sub(wt.T.Time).Round(100*time.Microsecond))
	if wt.Attention != event.AttnPermission || wt.Tool != "bash" || wt.Text != "echo marker > marker.txt" {
		t.Errorf("waiting state: attention %q tool %q text %q", wt.Attention, wt.Tool, wt.Text)
	}
	pane.WaitText(15*time.Second, OmpApproval+"bash")
	time.Sleep(500 * time.Millisecond)
	if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "approve", "--pane", pane.ID, "-S", tm.Socket); code != 0 {
		t.Fatalf("ag-keys approve: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if b, err := os.ReadFile(filepath.Join(h.Project, "marker.txt")); err != nil || string(b) != "marker\n" {
		t.Errorf("the approved command did not run: %q %v", b, err)
	}

	t.Log("-- denied: waiting → Escape → the command did not run, the session leaves waiting")
	pane.Type("RUN: echo denied > denied.txt")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)
	pane.WaitText(15*time.Second, OmpApproval+"bash")
	time.Sleep(500 * time.Millisecond)
	if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "deny", "--pane", pane.ID, "-S", tm.Socket); code != 0 {
		t.Fatalf("ag-keys deny: %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	if _, err := os.Stat(filepath.Join(h.Project, "denied.txt")); err == nil {
		t.Error("denied.txt exists: the denied command ran")
	}
	m := pl.Out.Await(t, "with meters", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Model != "" && e.Tokens != nil && e.Context != nil
	})
	if m.Model != "fake-model" || m.Context.Used <= 0 || m.Context.Size != 128000 {
		t.Errorf("meters: model %q context %+v; want the window of omp's models.yml, 128000", m.Model, *m.Context)
	}

	t.Log("-- a question (omp's ask tool): waiting(question) with its text and options, a reply and a button each offered; ag-keys answer → the own answer typed → done; an option's button → that option picked → done; picked in the pane → done; Escape → idle (the call's end, then the abort)")
	from = len(nd.Calls())
	pane.Type(`CALL: ask {"questions":[{"id":"colour","question":"Which colour?","options":[{"label":"Blue"},{"label":"Green"},{"label":"Red"}]}]}`)
	q := s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	if q.Attention != event.AttnQuestion || q.Tool != "ask" || q.Text != "Which colour?" || !slices.Equal(q.Options, []string{"Blue", "Green", "Red"}) {
		t.Errorf("question state: attention %q tool %q text %q options %q", q.Attention, q.Tool, q.Text, q.Options)
	}
	qn, _ := nd.WaitCall(from, "Notify for the question", 15*time.Second, func(c Call) bool {
		return c.Call == "Notify" && strings.Contains(c.Body, "Which colour?")
	})
	if hasButtons(qn) || !slices.Contains(qn.Actions, "inline-reply") {
		t.Errorf("omp's question: actions %q, want a reply and no Approve/Deny", qn.Actions)
	}
	pane.WaitText(15*time.Second, "Other (type your own)")
	time.Sleep(300 * time.Millisecond)
	if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "answer", "Purple please", "--pane", pane.ID, "-S", tm.Socket); code != 0 {
		t.Fatalf("ag-keys answer on omp's question: exit %d %s", code, out)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	pane.WaitText(10*time.Second, "✔ Purple please") // omp's record of its own answer
	from = len(nd.Calls())
	pane.Type(`CALL: ask {"questions":[{"id":"size","question":"Which size?","options":[{"label":"Small"},{"label":"Large"}]}]}`)
	q = s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)[1]
	o := r.offerWith(t, from, q, pane, "omp · project", "Has a question", "Which size?")
	pane.WaitText(15*time.Second, "Other (type your own)")
	time.Sleep(300 * time.Millisecond)
	if k := r.pressOption(t, o, pane, 2, "Large"); k.Status != "sent" || k.Text != "Down, 30ms, Enter" {
		t.Fatalf("the option's button: status %q text %q reason %q", k.Status, k.Text, k.Reason)
	}
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	pane.WaitText(10*time.Second, "◉ Large") // the option's button picks it
	pane.Type(`CALL: ask {"questions":[{"id":"colour","question":"Which colour now?","options":[{"label":"Blue"},{"label":"Green"}]}]}`)
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)
	pane.WaitText(15*time.Second, "Other (type your own)")
	pane.Keys("Down")
	time.Sleep(300 * time.Millisecond)
	pane.Keys("Enter")
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusDone)
	pane.WaitText(10*time.Second, "◉ Green") // omp's record of the answer
	pane.Type(`CALL: ask {"questions":[{"id":"db","question":"Which database?","options":[{"label":"SQLite"},{"label":"Postgres"}]}]}`)
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusWaiting)
	pane.WaitText(15*time.Second, "Other (type your own)")
	pane.Keys("Escape") // the call ends cancelled, then the run aborts
	s.Expect(t, 60*time.Second, event.StatusWorking, event.StatusIdle)

	t.Log("-- /new: a new session in place, the old one gone")
	old := s.ID
	pane.Type("/new")
	next := pl.Out.Await(t, "of the new session", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Agent == omp.ID && e.Session != "" && e.Session != old
	})
	h.WaitState(30*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == old && st.Status != event.StatusGone {
				return false
			}
		}
		return true
	}, "the old session gone")

	t.Log("-- /exit: gone")
	pane.Type("/exit")
	pl.Out.Session(omp.ID, next.Session).WaitFor(t, "gone", 30*time.Second, func(e *event.Event) bool { return e.Status == event.StatusGone })
}

// TestOmpXDG: with $XDG_DATA_HOME/omp there, omp 18.2.3 writes its
// sessions to $XDG_DATA_HOME/omp/sessions (no agent/ level) and keeps its
// models in ~/.omp/agent: ag-tail follows the session there, with the
// window from the agent directory's models.yml.
func TestOmpXDG(t *testing.T) {
	t.Parallel()
	bin := Install(t, Omp)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	h.OmpConfig(api, bin)
	xdg := filepath.Join(h.Root, "xdg")
	if err := os.MkdirAll(filepath.Join(xdg, "omp"), 0o700); err != nil {
		t.Fatal(err)
	}
	h.Setenv("XDG_DATA_HOME", xdg)
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "omp")
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	tm := h.StartTmux()
	pane := h.StartOmp(tm, "omp", bin)
	s := pl.Out.Session(omp.ID, "")
	// The extension's session.start says omp is up; a fresh omp (first run
	// of a new cache, on a loaded machine: CI once needed more than 15 s)
	// can still drop an Enter typed just after it, leaving the prompt in
	// its composer: press it again then.
	s.Expect(t, 60*time.Second, event.StatusIdle)
	pane.Type("say hello")
	for i := 0; i < 40 && strings.Contains(pane.Capture(), "╰─ say hello"); i++ {
		time.Sleep(time.Second)
		if strings.Contains(pane.Capture(), "╰─ say hello") {
			pane.Keys("Enter")
		}
	}
	s.Expect(t, 60*time.Second, event.StatusWorking)
	s.Expect(t, 60*time.Second, event.StatusDone)
	m := pl.Out.Await(t, "a meter's state", 30*time.Second, func(e *event.Event) bool {
		return e.Kind == event.State && e.Session == s.ID && e.Context != nil && e.Context.Size > 0
	})
	files, _ := filepath.Glob(filepath.Join(xdg, "omp", "sessions", "*", "*.jsonl"))
	if len(files) != 1 || m.Transcript != files[0] || m.Context.Size != 128000 {
		t.Errorf("session files %q; state's transcript %q, context %+v", files, m.Transcript, *m.Context)
	}
}
