package cline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/internal/keystest"
	"github.com/agwatch/ag/providers/provider"
)

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		env                 map[string]string
		hooks, sessions, db string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.cline/hooks", "/h/.cline/data/sessions", "/h/.cline/data/db/sessions.db"},
		{map[string]string{"HOME": "/h", "CLINE_DIR": "/c"}, "/c/hooks", "/c/data/sessions", "/c/data/db/sessions.db"},
		{map[string]string{"HOME": "/h", "CLINE_DATA_DIR": "/d"}, "/h/.cline/hooks", "/d/sessions", "/d/db/sessions.db"},
		{map[string]string{"HOME": "/h", "CLINE_SESSION_DATA_DIR": "/s", "CLINE_DB_DATA_DIR": "/b"}, "/h/.cline/hooks", "/s", "/b/sessions.db"},
		{map[string]string{"HOME": "/h", "CLINE_DIR": "relative"}, "/h/.cline/hooks", "/h/.cline/data/sessions", "/h/.cline/data/db/sessions.db"},
	} {
		env := func(k string) string { return tc.env[k] }
		p := New()
		if got := p.ConfigPath(env); got != tc.hooks {
			t.Errorf("%v: hooks %s", tc.env, got)
		}
		if got := p.TranscriptRoots(env); len(got) != 1 || got[0].Dir != tc.sessions {
			t.Errorf("%v: sessions %v", tc.env, got)
		}
		if got := p.StorePaths(env); len(got) != 1 || got[0] != tc.db {
			t.Errorf("%v: db %v", tc.env, got)
		}
	}
}

// TestDetect: the TUI is the agent, its hub daemon (the same binary) is
// not, and the package's node launcher is looked through.
func TestDetect(t *testing.T) {
	r := New().ProcRules()
	bin := "/p/node_modules/@cline/cli-linux-x64/bin/cline"
	for _, tc := range []struct {
		exe  string
		argv []string
		want provider.ProcMatch
	}{
		{bin, []string{"/p/node_modules/.bin/cline"}, provider.ProcMatch{OK: true}},
		{bin, []string{bin, "--id", "1796409520602_u5r45"}, provider.ProcMatch{OK: true}},
		{bin, []string{bin, "--cline-hub-daemon", "--cwd", "/w", "--host", "127.0.0.1", "--port", "25463", "--pathname", "/hub"}, provider.ProcMatch{}},
		{"/usr/bin/node", []string{"node", "/p/node_modules/cline/bin/cline"}, provider.ProcMatch{OK: true, Launcher: true}},
		{"/p/node_modules/cline/bin/.cline", []string{"/p/node_modules/cline/bin/.cline"}, provider.ProcMatch{OK: true}},
		{"/usr/bin/less", []string{"less", "cline.md"}, provider.ProcMatch{}},
	} {
		if got := r.Match(tc.exe, tc.argv); got != tc.want {
			t.Errorf("Match(%q, %q) = %+v, want %+v", tc.exe, tc.argv, got, tc.want)
		}
	}
}

func screen(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "screens", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPaneRules: Cline 3.0.65's screens, captured in tmux at 120×40. A
// prompt that quotes the dialogs' words, at work and answered, is no wait.
func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	for _, tc := range []struct {
		file, state, attention, tool, text string
		labels                             string
		at, down                           int
	}{
		{"idle-home", "idle", "", "", "", "", 0, 0},
		{"idle", "idle", "", "", "", "", 0, 0},
		{"cleared", "idle", "", "", "", "", 0, 0},
		{"working", "working", "", "", "", "", 0, 0},
		{"auto-running", "working", "", "", "", "", 0, 0}, // auto-approve on: a call runs, the composer shows
		{"permission", "permission", "permission", "run_commands", "echo marker > marker.txt", "", 0, 0},
		{"plan", "plan", "plan", "switch_to_act_mode", "Switch from plan mode to act mode", "", 0, 0},
		{"denied", "idle", "", "", "", "", 0, 0},
		{"permission-escape", "idle", "", "", "", "", 0, 0},
		{"question", "question", "question", "ask_question", "Which colour?", "Blue|Green|Type a response...", 0, 2},
		{"question-own", "question", "question", "ask_question", "Which colour?", "Blue|Green|Type a response...", 2, 0},
		{"question-own-typed", "question", "question", "ask_question", "Which colour?", "Blue|Green|2 apples", 2, 0},
		{"question-typed", "question", "question", "ask_question", "Which colour?", "Blue|Green|Teal please", 2, 0},
		{"escaped", "idle", "", "", "", "", 0, 0},
		{"failed", "idle", "", "", "", "", 0, 0},
		{"promo", panePromo, "", "", "", "", 0, 0},
		{"help", paneHelp, "", "", "", "", 0, 0},
		{"quoted-working", "working", "", "", "", "", 0, 0},
		{"quoted", "idle", "", "", "", "", 0, 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := panes.Classify(&rules, screen(t, tc.file))
			if r.State != tc.state || r.Attention != tc.attention || r.Tool != tc.tool || r.Text != tc.text {
				t.Errorf("Classify = %+v; want state %q attention %q tool %q text %q", r, tc.state, tc.attention, tc.tool, tc.text)
			}
			if tc.labels != "" && (r.Picker == nil || strings.Join(r.Picker.Labels, "|") != tc.labels || r.Picker.At != tc.at || r.Picker.Down != tc.down) {
				t.Errorf("picker %+v, want %s at %d down %d", r.Picker, tc.labels, tc.at, tc.down)
			}
		})
	}
}

// TestAnswerInput: the response row as ag-keys reads it before an Enter.
func TestAnswerInput(t *testing.T) {
	rules := New().PaneRules()
	only := rules.Only([]string{paneAnswer})
	for file, want := range map[string]string{"question-own-typed": "2 apples", "question-typed": "Teal please", "question-own": "", "question": ""} {
		r := panes.Classify(&only, screen(t, file))
		if r.Text != want {
			t.Errorf("%s: %+v, want the row holding %q", file, r, want)
		}
	}
}

// TestKeys: what ag-keys types for each action on Cline's screens.
func TestKeys(t *testing.T) {
	km, rules := New().Keys(), New().PaneRules()
	for _, tc := range []struct {
		name, status, attention, screen, action, text, want string
	}{
		{"approve", "waiting", "permission", "permission", "approve", "", "y"},
		{"deny", "waiting", "permission", "permission", "deny", "", "n"},
		{"no feedback on a permission", "waiting", "permission", "permission", "reply", "use printf", "refused: cline offers no reply on a permission wait"},
		{"plan approve", "waiting", "plan", "plan", "approve", "", "y"},
		{"plan deny", "waiting", "plan", "plan", "plan-deny", "", "n"},
		{"a plan the hook took for a permission", "waiting", "permission", "plan", "approve", "", "y"},
		{"an option's label", "waiting", "question", "question", "answer", "green", "Down, 30ms, Enter"},
		{"own answer", "waiting", "question", "question", "answer", "2 apples", `Down, 30ms, Down, 150ms, "2 apples", 150ms, Enter once shown`},
		{"own answer, the row already there", "waiting", "question", "question-own", "answer", "Teal", `"Teal", 150ms, Enter once shown`},
		{"no picker on screen", "waiting", "question", "idle", "answer", "Teal", "refused: the pane shows no prompt (idle)"},
		{"reply when done", "done", "", "idle", "reply", "!ls is fine", `"!ls is fine", 150ms, Enter`},
		{"a slash word", "done", "", "idle", "reply", "see /help", "refused: unsafe reply: a / word opens Cline's command menu, and Enter would run the command instead"},
		{"a notice up", "done", "", "promo", "reply", "hi", "refused: a Cline notice is up: the next key closes it"},
	} {
		if got := keystest.Press(rules, km, ID, tc.status, tc.attention, screen(t, tc.screen), tc.action, tc.text); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, got, tc.want)
		}
	}
}

func TestCommands(t *testing.T) {
	c := New().Commands()
	if l, err := c.ResumeCommand("1796409520602_u5r45", provider.Launch{}); l != "command cline --id '1796409520602_u5r45'" || err != nil {
		t.Errorf("resume %q %v", l, err)
	}
	if l, err := c.SpawnCommand("fix it", provider.Launch{Model: "fake-model"}); l != "command cline -m fake-model --tui 'fix it'" || err != nil {
		t.Errorf("spawn %q %v", l, err)
	}
	if _, err := c.ForkIDCommand("1_x", provider.Launch{}); err == nil {
		t.Error("Cline has no fork on its command line")
	}
}

// runHook runs an installed hook script as Cline does (sh <file>, the
// payload on stdin) and returns what it printed.
func runHook(t *testing.T, file, payload string) string {
	t.Helper()
	cmd := exec.Command("sh", file)
	cmd.Stdin = strings.NewReader(payload)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", file, err, out)
	}
	return string(out)
}
