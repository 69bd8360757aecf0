package codex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"testing"

	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/internal/keystest"
	"github.com/agwatch/ag/providers/provider"
)

func TestKeys(t *testing.T) {
	k := New().Keys()
	if len(k.Approve) != 1 || k.Approve[0] != "Enter" || len(k.Deny) != 1 || k.Deny[0] != "Escape" {
		t.Errorf("approve/deny %v %v", k.Approve, k.Deny)
	}
	if k.PermissionPrelude != nil {
		t.Error("Codex offers no reply on a permission")
	}
	if !slices.Equal(k.PlanApprove, []string{"1"}) || !slices.Equal(k.PlanDeny, []string{"3"}) || !slices.Equal(k.PlanPrelude, []string{"3"}) {
		t.Errorf("plan keys %v %v %v; want 1 (implement), 3 (stay in Plan mode), 3 then the reply", k.PlanApprove, k.PlanDeny, k.PlanPrelude)
	}
	if k.FinishedPrelude == nil || len(k.FinishedPrelude) != 0 {
		t.Error("reply when finished goes straight into the composer")
	}
	for text, refused := range map[string]bool{
		"!rm -rf ~":        true,
		"   !ls":           true,
		"\t\n!ls":          true,
		"\u00a0!ls":        true,
		"fix it!":          false,
		"/model":           false, // defused by the leading space instead
		"run `!x` for me":  false,
		"":                 false,
		"ok, and then ! x": false,
	} {
		if got := k.UnsafeReply(text) != ""; got != refused {
			t.Errorf("UnsafeReply(%q) refused=%v; want %v", text, got, refused)
		}
	}
	if k.DefuseLeading != " " {
		t.Errorf("DefuseLeading %q", k.DefuseLeading)
	}
}

func TestCommands(t *testing.T) {
	c := New().Commands()
	for _, tc := range []struct {
		name string
		got  func() (string, error)
		want string
	}{
		{"resume", func() (string, error) {
			return c.ResumeCommand("01a22a3d-7489-75e1-a18e-a8dc8b3849ac", provider.Launch{})
		}, "command codex resume '01a22a3d-7489-75e1-a18e-a8dc8b3849ac'"},
		{"resume with model", func() (string, error) {
			return c.ResumeCommand("abc", provider.Launch{Model: "gpt-5.1-codex"})
		}, "command codex resume 'abc' -m gpt-5.1-codex"},
		{"spawn", func() (string, error) { return c.SpawnCommand("it's $HOME", provider.Launch{}) },
			`command codex -- 'it'\''s $HOME'`},
		{"spawn a prompt that is a subcommand's name", func() (string, error) { return c.SpawnCommand("review", provider.Launch{}) },
			`command codex -- 'review'`},
		{"spawn with model and launcher", func() (string, error) {
			return c.SpawnCommand("hi", provider.Launch{Bin: "/opt/codex/bin/codex", Model: "o3"})
		}, "command /opt/codex/bin/codex -m o3 -- 'hi'"},
	} {
		got, err := tc.got()
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := c.SpawnCommand("-v is broken", provider.Launch{}); err == nil {
		t.Error("a prompt that looks like a flag is refused")
	}
	if _, err := c.ForkCommand("/x/rollout.jsonl", provider.Launch{}); err == nil {
		t.Error("fork is not offered for Codex")
	}
}

func TestProcRules(t *testing.T) {
	r := New().ProcRules()
	for _, tc := range []struct {
		name     string
		exe      string
		argv     []string
		ok, lnch bool
	}{
		{"node wrapper is a launcher", "/usr/bin/node", []string{"node", "/p/node_modules/.bin/codex", "--dangerously-bypass-hook-trust"}, true, true},
		{"native child is the agent", "/p/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
			[]string{"/p/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", "--dangerously-bypass-hook-trust"}, true, false},
		{"homebrew binary", "/opt/homebrew/bin/codex", []string{"codex"}, true, false},
		{"shared background server", "/h/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex",
			[]string{"/h/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex", "app-server", "--listen", "unix://"}, false, false},
		{"code-mode host", "/p/vendor/bin/codex-code-mode-host", []string{"codex-code-mode-host"}, false, false},
		{"computer-use plugin host", "/home/u/.codex/plugins/cache/computer-use/1.0.793/Codex", []string{"Codex", "mcp"}, false, false},
		{"an editor on a file called codex", "/usr/bin/vim", []string{"vim", "codex"}, false, false},
		{"node running something else", "/usr/bin/node", []string{"node", "server.js"}, false, false},
	} {
		m := r.Match(tc.exe, tc.argv)
		if m.OK != tc.ok || m.Launcher != tc.lnch {
			t.Errorf("%s: %+v; want ok=%v launcher=%v", tc.name, m, tc.ok, tc.lnch)
		}
	}
	env := func(k string) string { return map[string]string{"CODEX_HOME": "/srv/codex"}[k] }
	if !IsPluginHost(env, "/srv/codex/plugins/cache/cu/1.0", "") || !IsPluginHost(env, "/work", "/srv/codex/plugins/x/Codex") ||
		IsPluginHost(env, "/srv/codex/pluginsX", "") || IsPluginHost(env, "/work", "/usr/bin/codex") {
		t.Error("IsPluginHost")
	}
}

func TestTranscriptRoots(t *testing.T) {
	roots := New().TranscriptRoots(func(k string) string { return map[string]string{"HOME": "/home/u"}[k] })
	if len(roots) != 1 || roots[0].Dir != "/home/u/.codex/sessions" || !roots[0].NeedsPoll {
		t.Fatalf("roots %+v", roots)
	}
	for rel, want := range map[string][2]bool{
		"2026/11/30/rollout-2026-11-30T02-16-40-01a22a3d-7489-75e1-a18e-a8dc8b3849ac.jsonl": {true, false},
		"2026/11":                    {false, true},
		"2026/11/30/other.jsonl":     {false, false},
		"archived/rollout-x.jsonl":   {false, false},
		"2026/11/30/x/rollout.jsonl": {false, false},
	} {
		f, d := roots[0].Match(rel)
		if f != want[0] || d != want[1] {
			t.Errorf("Match(%q) = %v,%v; want %v", rel, f, d, want)
		}
	}
}

func TestRolloutsSince(t *testing.T) {
	h := newHome(t)
	old := "sessions/2026/11/01/rollout-2026-11-01T10-00-00-00000000-0000-0000-0000-000000000001.jsonl"
	// Today's folder, as Codex names it (local time): a fixed date falls
	// out of the one-day window once the calendar passes it.
	now := time.Now()
	cur := "sessions/" + now.Format("2006/01/02") + "/rollout-" + now.Format("2006-01-02T15-04-05") + "-01a22a3d-7489-75e1-a18e-a8dc8b3849ac.jsonl"
	h.write(old, "{}\n")
	h.write(cur, "{}\n")
	h.write("sessions/"+now.Format("2006/01/02")+"/notes.txt", "x")
	past := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(h.dir, "codex", old), past, past)
	all, err := Rollouts(h.ie.Env, time.Time{})
	if err != nil || len(all) != 2 || !strings.HasSuffix(all[0], "000000000001.jsonl") {
		t.Fatalf("all: %v %v", all, err)
	}
	recent, err := Rollouts(h.ie.Env, time.Now().Add(-time.Hour))
	if err != nil || len(recent) != 1 || !strings.HasSuffix(recent[0], "a8dc8b3849ac.jsonl") {
		t.Fatalf("since an hour ago: %v %v", recent, err)
	}
}

func TestSessionFromArgv(t *testing.T) {
	id := "01a22a99-270d-7d22-a9a0-8a6a7bddb160"
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"codex", "resume", id}, id},
		{[]string{"/p/vendor/bin/codex", "--no-daemon", "resume", "-m", "o3", strings.ToUpper(id)}, id},
		{[]string{"node", "/p/.bin/codex", "resume", id}, id},
		{[]string{"codex", "resume", "--last"}, ""},
		{[]string{"codex", "please resume " + id}, ""},
		{[]string{"codex"}, ""},
		{nil, ""},
	} {
		if got := SessionFromArgv(tc.argv); got != tc.want {
			t.Errorf("SessionFromArgv(%q) = %q; want %q", tc.argv, got, tc.want)
		}
	}
}

// TestQuestionKeys: request_user_input's picker (Plan mode, recorded on
// 0.171.0): its options read from the screen, each picked by Down and
// Enter (a digit would do as well); an own answer goes Down to "None of the
// above", Tab opens its notes, the text, Enter; on a form, the question on
// screen is the one answered.
func TestQuestionKeys(t *testing.T) {
	rules, km := New().PaneRules(), New().Keys()
	keystest.CheckOptions(t, rules, km, ID, []keystest.Options{
		{Screen: "question.txt", Want: []string{"Blue", "Green"}, Keys: []string{"Enter", "Down, 30ms, Enter"}},
		{Screen: "question-form1.txt", Want: []string{"Small", "Large"}, Keys: []string{"Enter", "Down, 30ms, Enter"}},
		{Screen: "question-form2.txt", Want: []string{"Blue", "Green"}, Keys: []string{"Enter", "Down, 30ms, Enter"}},
	})
	b, err := os.ReadFile("testdata/screens/question.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := keystest.Answer(t, rules, km, ID, string(b), "Teal please")
	if !strings.HasPrefix(got, "Down, 30ms, Down, 30ms, Tab, ") || !strings.HasSuffix(got, `"Teal please", 150ms, Enter once shown`) {
		t.Errorf("an own answer: %s; want Down, Down, Tab, the text, Enter", got)
	}
	// The notes field holding the text is what ag-keys waits for before
	// its Enter (KeyMap.Input).
	for name, want := range map[string]struct{ screen, text string }{
		paneNotes: {"question-notes.txt", "Teal please"},
		paneDraft: {"draft.txt", "draft text not sent"}, // a plan's reply, typed in the composer
	} {
		b, _ := os.ReadFile("testdata/screens/" + want.screen)
		for _, st := range rules.States {
			if st.Name != name {
				continue
			}
			st.Aside = false
			r := panes.Classify(&panes.Rules{States: []panes.State{st}}, string(b))
			if r.State != name || r.Text != want.text {
				t.Errorf("%s: %+v; want its text %q", name, r, want.text)
			}
		}
	}
}
