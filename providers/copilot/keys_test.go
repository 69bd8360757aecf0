package copilot

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/notify"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/internal/keystest"
	"github.com/agwatch/ag/providers/provider"
)

func state(status, attn string) event.Event {
	e := event.New(event.State, time.Unix(1796124439, 0), ID, "5b3fb863-fc1b-4b40-99b6-511921dc4d8b")
	e.Status, e.Attention, e.Token = status, attn, "1796124439000.4"
	return e
}

// TestKeys: what ag-keys types into Copilot for each action, with the pane
// as the captured screens show it.
func TestKeys(t *testing.T) {
	km := New().Keys()
	rules := New().PaneRules()
	screen := func(name string) *panes.Result {
		b, err := readScreen(name)
		if err != nil {
			t.Fatal(err)
		}
		r := panes.Classify(&rules, b)
		return &r
	}
	down := "Down, 30ms, Down, 30ms, Down, 30ms, Down, 30ms, Down"
	for _, tc := range []struct {
		name, status, attn, action, text, screen string
		want, refusal                            string
	}{
		{"approve a command", "waiting", "permission", "approve", "", "permission-shell", "1", ""},
		{"approve a URL", "waiting", "permission", "approve", "", "permission-url", "1", ""},
		{"deny: Escape, whatever row No is on", "waiting", "permission", "deny", "", "permission-shell-3", "Escape", ""},
		{"reply on a permission: Down to the feedback row", "waiting", "permission", "reply", "use printf", "permission-shell-3",
			down + `, 150ms, "use printf", 150ms, Enter`, ""},
		{"plan approve: the Interactive row, 2 here", "waiting", "plan", "plan-approve", "", "plan", "2", ""},
		{"plan approve: the Interactive row, 1 when recommended", "waiting", "plan", "approve", "", "plan-interactive", "1", ""},
		{"plan approve with no plan on screen types nothing", "waiting", "plan", "plan-approve", "", "idle", "", "the pane shows no prompt"},
		{"plan deny", "waiting", "plan", "plan-deny", "", "plan", "Escape", ""},
		{"reply on a plan: Suggest changes", "waiting", "plan", "reply", "add tests first", "plan",
			down + `, 150ms, "add tests first", 150ms, Enter`, ""},
		{"a question: the highlighted choice's label is Enter", "waiting", "question", "answer", "postgres", "question", "Enter", ""},
		{"a question: another choice's label, in any case, is Down to it and Enter", "waiting", "question", "answer", "SQLite", "question", "Down, 30ms, Enter", ""},
		{"a question: other text goes into Other's field", "waiting", "question", "answer", "mysql please", "question",
			`Down, 30ms, Down, 150ms, "mysql please", 150ms, Enter`, ""},
		{"a question of several fields: the one on screen", "waiting", "question", "answer", "green", "question-two", "Down, 30ms, Enter", ""},
		{"a question's second field", "waiting", "question", "answer", "large", "question-two-second", "Down, 30ms, Enter", ""},
		{"a question with the cursor on Other: its label is Up to it", "waiting", "question", "answer", "blue", "question-other", "Up, 30ms, Up, 30ms, Enter", ""},
		{"a field of free text: the text straight in, and Enter", "waiting", "question", "answer", "Ada Lovelace", "question-text", `"Ada Lovelace", 150ms, Enter`, ""},
		{"a field of free text takes a digit", "waiting", "question", "answer", "7", "question-text", `"7", 150ms, Enter`, ""},
		{"a field of free text: a reply is the answer", "waiting", "question", "reply", "Ada", "question-text", `"Ada", 150ms, Enter`, ""},
		{"a field of free text still refuses a leading !", "waiting", "question", "answer", "!ls", "question-text", "", "shell command"},
		{"a digit on a field of choices goes into Other's field", "waiting", "question", "answer", "7", "question-two",
			`Down, 30ms, Down, 150ms, "7", 150ms, Enter`, ""},
		{"a question with no form on screen: nothing typed", "waiting", "question", "answer", "postgres", "idle", "", "the pane shows no prompt"},
		{"reply when done", "done", "", "reply", "now run the tests", "", `"now run the tests", 150ms, Enter`, ""},
		{"reply starting with / is refused", "done", "", "reply", "  /help me", "", "", "slash command"},
		{"reply starting with ! is refused", "idle", "", "reply", "!rm -rf ~", "", "", "shell command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := keyplan.Request{State: state(tc.status, tc.attn), Action: tc.action, Text: tc.text}
			if tc.screen != "" {
				req.Screen = screen(tc.screen)
			}
			p, err := keyplan.Decide(req, km)
			if tc.refusal != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refusal) {
					t.Fatalf("Decide = %q, %v; want refusal %q", keyplan.Describe(p), err, tc.refusal)
				}
				return
			}
			if err != nil || keyplan.Describe(p) != tc.want {
				t.Fatalf("Decide = %q, %v; want %q", keyplan.Describe(p), err, tc.want)
			}
		})
	}
}

// TestNotifyButtons: a plan's buttons are offered though their keys come
// from the pane; a question has none.
func TestNotifyButtons(t *testing.T) {
	agents := notify.Agents{Keys: func(string) (provider.KeyMap, bool) { return New().Keys(), true }}
	for attn, want := range map[string]int{"permission": 2, "plan": 2, "question": 0} {
		e := state("waiting", attn)
		if n := agents.Build(notify.KindWaiting, &e); len(n.Buttons) != want {
			t.Errorf("%s: buttons %v", attn, n.Buttons)
		}
	}
}

func TestCommands(t *testing.T) {
	c := New().Commands()
	if got, err := c.ResumeCommand("5b3fb863-fc1b-4b40-99b6-511921dc4d8b", provider.Launch{}); err != nil || got != "command copilot --resume='5b3fb863-fc1b-4b40-99b6-511921dc4d8b'" {
		t.Errorf("resume %q %v", got, err)
	}
	if got, err := c.SpawnCommand("it's $(id)", provider.Launch{Model: "gpt-5"}); err != nil || got != `command copilot --model gpt-5 -i 'it'\''s $(id)'` {
		t.Errorf("spawn %q %v", got, err)
	}
}

func TestDetect(t *testing.T) {
	r := New().ProcRules()
	for _, tc := range []struct {
		exe      string
		argv     []string
		ok, via  bool
		sessions string
	}{
		{"/usr/bin/node", []string{"node", "/p/node_modules/.bin/copilot"}, true, true, ""},
		{"/p/node_modules/@github/copilot-linux-x64/copilot", []string{"/p/node_modules/@github/copilot-linux-x64/copilot", "--resume=5B3FB863-FC1B-4B40-99B6-511921DC4D8B"}, true, false, "5b3fb863-fc1b-4b40-99b6-511921dc4d8b"},
		{"/usr/local/bin/copilot", []string{"copilot", "-r", "5b3fb863-fc1b-4b40-99b6-511921dc4d8b"}, true, false, "5b3fb863-fc1b-4b40-99b6-511921dc4d8b"},
		{"/usr/bin/gh", []string{"gh", "copilot", "suggest"}, false, false, ""},
		{"/h/.local/share/gh/extensions/gh-copilot/gh-copilot", []string{"gh-copilot", "suggest"}, false, false, ""},
		{"/usr/bin/vim", []string{"vim", "copilot"}, false, false, ""},
	} {
		m := r.Match(tc.exe, tc.argv)
		if m.OK != tc.ok || m.Launcher != tc.via {
			t.Errorf("%q: %+v", tc.argv, m)
		}
		if got := SessionFromArgv(tc.argv); got != tc.sessions {
			t.Errorf("%q: session %q", tc.argv, got)
		}
	}
}

// TestScreenOptions: the options ag-detect reads in the recorded forms,
// each reached by Up or Down from the cursor and Enter; "Other" is none,
// and a form of several fields (tabs) or a text field has none.
func TestScreenOptions(t *testing.T) {
	keystest.CheckOptions(t, New().PaneRules(), New().Keys(), ID, []keystest.Options{
		{Screen: "question.txt", Want: []string{"postgres", "sqlite"}, Keys: []string{"Enter", "Down, 30ms, Enter"}},
		{Screen: "question-other.txt", Want: []string{"Blue", "Green"}, Keys: []string{"Up, 30ms, Up, 30ms, Enter", "Up, 30ms, Enter"}},
		{Screen: "question-two.txt"},
		{Screen: "question-two-second.txt"},
		{Screen: "question-text.txt"},
		{Screen: "permission-shell.txt"},
	})
}
