package cursor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/fold"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/cursor/cursorhook"
	"github.com/agwatch/ag/providers/provider"
)

func env(m map[string]string) provider.Env { return func(k string) string { return m[k] } }

// fakeAgent puts a cursor-agent on a PATH of its own that says version v.
func fakeAgent(t *testing.T, v string) string {
	dir := t.TempDir()
	script := "#!/bin/sh\necho '" + v + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "cursor-agent"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hooksJSON is a user's ~/.cursor/hooks.json with a hook of their own.
const hooksJSON = `{
  "version": 1,
  "hooks": {
    "afterFileEdit": [
      { "command": "./hooks/format.sh" }
    ]
  }
}
`

func TestInstall(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".cursor"), 0o755)
	path := filepath.Join(home, ".cursor", "hooks.json")
	os.WriteFile(path, []byte(hooksJSON), 0o600)
	p := New()
	ie := provider.InstallEnv{Env: env(map[string]string{"HOME": home, "PATH": fakeAgent(t, "2026.09.18-9a7762b")}), Hook: "/opt/ag/ag-hook"}
	res, err := p.Install(ie)
	if err != nil || !res.Changed || len(res.Actions) != len(cursorhook.Hooks) {
		t.Fatalf("install: %+v %v", res, err)
	}
	var got struct {
		Version int                                   `json:"version"`
		Hooks   map[string][]struct{ Command string } `json:"hooks"`
	}
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Version != 1 || got.Hooks["afterFileEdit"][0].Command != "./hooks/format.sh" {
		t.Errorf("after install:\n%s", data)
	}
	for _, ev := range cursorhook.Hooks {
		if hs := got.Hooks[ev]; len(hs) != 1 || hs[0].Command != "'/opt/ag/ag-hook' cursor" {
			t.Errorf("%s: %+v", ev, hs)
		}
	}
	if st, err := p.Status(ie); err != nil || st.State != provider.Installed || len(st.Reasons) != 0 {
		t.Errorf("status %+v %v", st, err)
	}
	if _, err := p.Uninstall(ie); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != hooksJSON {
		t.Errorf("uninstall left:\n%s", data)
	}
}

// TestVersionGate: an install with a cursor-agent older than 2026.1.16 on
// PATH writes the hooks and says they will not run until it is updated.
func TestVersionGate(t *testing.T) {
	home := t.TempDir()
	p := New()
	old := provider.InstallEnv{Env: env(map[string]string{"HOME": home, "PATH": fakeAgent(t, "2026.01.08-1a2b3c4")}), Hook: "/opt/ag/ag-hook"}
	res, err := p.Install(old)
	if err != nil || !res.Changed {
		t.Fatalf("install: %+v %v", res, err)
	}
	last := res.Actions[len(res.Actions)-1]
	if !strings.HasPrefix(last, "! ") || !strings.Contains(last, "is 2026.1.8") || !strings.Contains(last, "2026.1.16") {
		t.Errorf("no warning: %q", res.Actions)
	}
	if st, _ := p.Status(old); st.State != provider.Installed || len(st.Reasons) != 1 {
		t.Errorf("status %+v", st)
	}
	data, _ := os.ReadFile(filepath.Join(home, ".cursor", "hooks.json"))
	if !strings.HasPrefix(string(data), "{\n  \"version\": 1,") {
		t.Errorf("a new hooks.json starts:\n%s", data)
	}
	for v, older := range map[string]bool{"2026.1.16": false, "2026.01.15": true, "2025.12.31-abc": true, "2026.07.01-41b2de7": false, "cursor-agent 2026.09.18": false} {
		got, ok := ParseVersion(v)
		if !ok || Older(got, MinVersion) != older {
			t.Errorf("%s: %v %v, older %v", v, got, ok, Older(got, MinVersion))
		}
	}
	if _, ok := ParseVersion("unknown"); ok {
		t.Error("parsed a version out of nothing")
	}
}

func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct{ file, state, tool, text string }{
		{"permission", "permission", "Shell", "rm NOTE.txt"},
		{"webfetch", "permission", "WebFetch", "https://example.com/api"},
		{"working", "working", "", ""},
		{"rejection-reason", "", "", ""},
		{"transcript-mentions", "", "", ""},
	} {
		b, err := os.ReadFile("testdata/screens/" + tc.file + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		r := panes.Classify(&rules, string(b))
		if r.State != tc.state || r.Tool != tc.tool || r.Text != tc.text {
			t.Errorf("%s: %+v", tc.file, r)
		}
	}
}

func TestKeys(t *testing.T) {
	km := New().Keys()
	st := event.New(event.State, time.Unix(1796124439, 0), ID, "c1")
	st.Status, st.Attention, st.Token = event.StatusWaiting, event.AttnPermission, "1.2"
	perm := &panes.Result{Kind: panes.Wait, Attention: event.AttnPermission, State: "permission"}
	for action, want := range map[string]string{"approve": "y", "deny": "C-c"} {
		p, err := keyplan.Decide(keyplan.Request{State: st, Action: action, Screen: perm}, km)
		if err != nil || keyplan.Describe(p) != want {
			t.Errorf("%s: %q %v", action, keyplan.Describe(p), err)
		}
	}
	if _, err := keyplan.Decide(keyplan.Request{State: st, Action: "reply", Text: "no", Screen: perm}, km); err == nil {
		t.Error("a reply on Cursor's prompt was planned")
	}
	done := st
	done.Status, done.Attention = event.StatusDone, ""
	for text, ok := range map[string]bool{"now fix src/main.ts": true, "/help": false, "try running /help": false, "a/b": true, "!ls": true} {
		_, err := keyplan.Decide(keyplan.Request{State: done, Action: "reply", Text: text}, km)
		if (err == nil) != ok {
			t.Errorf("reply %q: %v", text, err)
		}
	}
	c := New().Commands()
	if got, _ := c.ResumeCommand("2f6c1b9e-7d3a-4e58-9a41-0c5e8b7d2a13", provider.Launch{}); got != "command cursor-agent --resume '2f6c1b9e-7d3a-4e58-9a41-0c5e8b7d2a13'" {
		t.Errorf("resume %q", got)
	}
	if got, _ := c.SpawnCommand("fix it", provider.Launch{}); got != "command cursor-agent 'fix it'" {
		t.Errorf("spawn %q", got)
	}
}

func TestDetect(t *testing.T) {
	r := New().ProcRules()
	for argv0, ok := range map[string]bool{"/home/u/.local/bin/cursor-agent": true, "agent": true, "ssh-agent": false, "/usr/bin/cursor": false, "vim": false} {
		if m := r.Match("", []string{argv0, "--resume", "2F6C1B9E-7D3A-4E58-9A41-0C5E8B7D2A13"}); m.OK != ok {
			t.Errorf("%s: %+v", argv0, m)
		}
	}
	if s := SessionFromArgv([]string{"cursor-agent", "--resume=2f6c1b9e-7d3a-4e58-9a41-0c5e8b7d2a13"}); s != "2f6c1b9e-7d3a-4e58-9a41-0c5e8b7d2a13" {
		t.Errorf("session %q", s)
	}
}

// TestReplay folds the recorded chat (cursorhook/testdata) with the
// estimate, ticking every 2 s as ag-fold does: the Shell call that waited
// 14 s for its approval is an estimated wait from 10 s after it started
// until its postToolUse; in the second prompt, the Grep beside npm test
// ends and npm test runs on into an estimated wait, which C-c (stop
// aborted) ends.
func TestReplay(t *testing.T) {
	for _, resumed := range []bool{false, true} {
		replay(t, resumed)
	}
}

// replay folds the recorded hooks, as recorded or as a resumed chat runs
// them (--resume fires no sessionStart: the first prompt makes the
// session known).
func replay(t *testing.T, resumed bool) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var evs []event.Event
	data, err := os.ReadFile("cursorhook/testdata/hooks-2026.09.18.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if resumed && strings.Contains(l, `"hook_event_name":"sessionStart"`) {
			continue
		}
		var rec struct {
			Ms      int64           `json:"ms"`
			Payload json.RawMessage `json:"payload"`
		}
		json.Unmarshal([]byte(l), &rec)
		out, err := cursorhook.Mapper{}.MapHook(rec.Payload, provider.HookContext{Now: t0.Add(time.Duration(rec.Ms) * time.Millisecond), PID: 31337})
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, out...)
	}
	f := fold.New(fold.Config{Estimate: func(string) time.Duration { return New().ApprovalEstimate() }})
	type step struct {
		at     float64
		status string
	}
	var got []step
	note := func(at time.Time, out []event.Event) {
		for _, s := range out {
			st := s.Status
			if s.Reason == event.ReasonEstimated {
				st += " estimated " + s.Tool + " " + s.Text
			}
			if len(got) == 0 || got[len(got)-1].status != st {
				got = append(got, step{at.Sub(t0).Seconds(), st})
			}
		}
	}
	next := t0
	for i := range evs {
		for next.Before(evs[i].T.Time) {
			note(next, f.Tick(next))
			next = next.Add(2 * time.Second)
		}
		note(evs[i].T.Time, f.Apply(&evs[i]))
	}
	want := []step{
		{0, "idle"}, {4.2, "working"},
		{20, "waiting estimated Shell rm NOTE.txt"}, // 8.3 s + 10 s, at the next 2 s tick
		{22.6, "working"}, {24.9, "done"},
		{31, "working"},
		{44, "waiting estimated Shell npm test"}, // 32.8 + 10, the tick after
		{47.5, "idle"},                           // C-c: stop aborted
		{52, "gone"},
	}
	if resumed {
		want = want[1:] // no idle before the prompt: nothing heard of it
	}
	if !slices.Equal(got, want) {
		t.Errorf("resumed %v:\ngot  %v\nwant %v", resumed, got, want)
	}
}
