package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/providers/internal/keystest"
	"github.com/agwatch/ag/providers/provider"
)

func TestKeys(t *testing.T) {
	k := New().Keys()
	if len(k.Approve) != 1 || k.Approve[0] != "1" || len(k.Deny) != 1 || k.Deny[0] != "Escape" {
		t.Errorf("approve/deny %v %v", k.Approve, k.Deny)
	}
	if k.PermissionPrelude != nil {
		t.Error("no reply on a permission")
	}
	if strings.Join(k.PlanApprove, " ") != "2" || strings.Join(k.PlanDeny, " ") != "Escape" {
		t.Errorf("plan keys %v %v: approve with manual edits, never 1 (every edit accepted)", k.PlanApprove, k.PlanDeny)
	}
	if k.AnswerPrelude == nil || len(k.AnswerPrelude) != 0 || k.PlanPrelude == nil || len(k.PlanPrelude) != 0 || !k.Paste {
		t.Errorf("answer %v, plan feedback %v, paste %v: pasted straight into the dialog", k.AnswerPrelude, k.PlanPrelude, k.Paste)
	}
	rules := New().PaneRules()
	names := map[string]bool{}
	for _, st := range rules.States {
		names[st.Name] = true
	}
	for n := range k.NoReply {
		if !names[n] {
			t.Errorf("NoReply names %q, no pane state", n)
		}
	}
	for _, n := range append(k.Unsent, k.Input...) {
		if !names[n] {
			t.Errorf("Unsent names %q, no pane state", n)
		}
	}
	if k.FinishedPrelude == nil || len(k.FinishedPrelude) != 0 || k.DefuseLeading != "" {
		t.Error("a finished reply goes straight in, undefused")
	}
	for text, refused := range map[string]bool{
		"/help me":   true,
		"  /quit":    true,
		"\t!rm -rf":  true,
		"\u00a0!ls":  true,
		"fix it!":    false,
		"see a/b":    false,
		"run `!x`":   false,
		"":           false,
		"ok / maybe": false,
	} {
		if got := k.UnsafeReply(text) != ""; got != refused {
			t.Errorf("UnsafeReply(%q) refused=%v; want %v", text, got, refused)
		}
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
			return c.ResumeCommand("bdc80954-5b8b-41bf-a134-8780c4ece6df", provider.Launch{})
		}, "command gemini --resume 'bdc80954-5b8b-41bf-a134-8780c4ece6df'"},
		{"resume with a model", func() (string, error) {
			return c.ResumeCommand("bdc80954", provider.Launch{Model: "gemini-2.5-pro"})
		}, "command gemini --resume 'bdc80954' -m gemini-2.5-pro"},
		{"spawn", func() (string, error) { return c.SpawnCommand("it's $HOME", provider.Launch{}) },
			`command gemini -i 'it'\''s $HOME'`},
		{"spawn with a model", func() (string, error) { return c.SpawnCommand("hi", provider.Launch{Model: "flash"}) },
			"command gemini -m flash -i 'hi'"},
	} {
		got, err := tc.got()
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := c.ForkCommand("/x/session.jsonl", provider.Launch{}); err == nil {
		t.Error("no fork for Gemini")
	}
}

func TestProcRules(t *testing.T) {
	r := New().ProcRules()
	bin := "/home/u/.npm-global/lib/node_modules/.bin/gemini"
	for _, tc := range []struct {
		name string
		exe  string
		argv []string
		want provider.ProcMatch
	}{
		{"the pane's node launcher", "/usr/bin/node", []string{"node", bin}, provider.ProcMatch{OK: true, Launcher: true}},
		{"its relaunched child", "/usr/bin/node", []string{"/usr/bin/node", "--max-old-space-size=12052", bin}, provider.ProcMatch{OK: true, Launcher: true}},
		{"a checkout's bundle", "/usr/bin/node", []string{"node", "/src/gemini-cli/bundle/gemini.js"}, provider.ProcMatch{OK: true, Launcher: true}},
		{"by package path", "/usr/bin/node", []string{"node", "/x/node_modules/@google/gemini-cli/dist/index.js"}, provider.ProcMatch{OK: true, Launcher: true}},
		{"a native build", "/opt/gemini/gemini", []string{"gemini"}, provider.ProcMatch{OK: true}},
		{"an argument is no agent", "/usr/bin/vim", []string{"vim", "gemini"}, provider.ProcMatch{}},
		{"another node program", "/usr/bin/node", []string{"node", "server.js", "gemini"}, provider.ProcMatch{}},
	} {
		if got := r.Match(tc.exe, tc.argv); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	for argv, want := range map[string]string{
		"gemini --resume BDC80954-5B8B-41BF-A134-8780C4ECE6DF":              "bdc80954-5b8b-41bf-a134-8780c4ece6df",
		"gemini -r=bdc80954-5b8b-41bf-a134-8780c4ece6df":                    "bdc80954-5b8b-41bf-a134-8780c4ece6df",
		"gemini --session-id bdc80954-5b8b-41bf-a134-8780c4ece6df -m flash": "bdc80954-5b8b-41bf-a134-8780c4ece6df",
		"gemini --resume latest":                                            "",
		"gemini --resume 3":                                                 "",
		"gemini -i hi":                                                      "",
	} {
		if got := SessionFromArgv(strings.Fields(argv)); got != want {
			t.Errorf("SessionFromArgv(%s) = %q, want %q", argv, got, want)
		}
	}
}

// An answer to ask_user's dialog (screens captured from Gemini CLI
// 0.61.0): an option's label, in any case, is its digit; other text, and a
// question that takes text, is pasted into the custom value and entered
// once shown.
func TestAnswerKeys(t *testing.T) {
	for _, c := range []struct{ screen, text, want string }{
		{"question.txt", "green", `2`},
		{"question.txt", "Blue", `1`},
		{"question.txt", "Green, but darker", `paste "Green, but darker", 150ms, Enter once shown`},
		{"question.txt", "enter a custom value", `paste "enter a custom value", 150ms, Enter once shown`},
		{"question-yesno.txt", "no", `2`},
		{"question-tabs.txt", "Ada", `paste "Ada", 150ms, Enter once shown`},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "screens", c.screen))
		if err != nil {
			t.Fatal(err)
		}
		if got := keystest.Answer(t, New().PaneRules(), New().Keys(), ID, string(b), c.text); got != c.want {
			t.Errorf("%s %q: %s\nwant %s", c.screen, c.text, got, c.want)
		}
	}
}

// TestScreenOptions: the options ag-detect reads in the recorded dialogs,
// each answered by its digit: a choice's, its custom value left out; a
// custom value typed in (its row no longer reads "Enter a custom value"),
// a tab of several questions and a text question have none.
func TestScreenOptions(t *testing.T) {
	keystest.CheckOptions(t, New().PaneRules(), New().Keys(), ID, []keystest.Options{
		{Screen: "question.txt", Want: []string{"Blue", "Green"}, Keys: []string{"1", "2"}},
		{Screen: "question-typed.txt"},
		{Screen: "question-yesno.txt"},
		{Screen: "question-tabs.txt"},
		{Screen: "question-review.txt"},
		{Screen: "permission.txt"},
	})
}
