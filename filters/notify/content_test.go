package notify

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// keys is a key map shaped like Claude's, written here so the tests do not
// depend on any provider's current choice.
var keys = provider.KeyMap{
	Approve: []string{"1"}, Deny: []string{"Escape"},
	PlanApprove: []string{"2"}, PlanDeny: []string{"Escape"},
	AnswerPrelude: []string{"Escape"}, PermissionPrelude: []string{"Escape"},
	PlanPrelude: []string{"Escape"}, FinishedPrelude: []string{},
}

var agents = Agents{
	Name: func(id string) string {
		if id == "claude" {
			return "Claude Code"
		}
		return ""
	},
	Keys: func(id string) (provider.KeyMap, bool) {
		switch id {
		case "claude":
			return keys, true
		case "approveonly":
			return provider.KeyMap{Approve: []string{"y"}}, true
		}
		return provider.KeyMap{}, false
	},
}

func TestBuild(t *testing.T) {
	base := func(status, attn, tool, text string) *event.Event {
		e := event.New(event.State, t0, "claude", "0b5e2a61-aaaa")
		e.Status, e.Attention, e.Tool, e.Text = status, attn, tool, text
		e.Cwd, e.Branch, e.Prompt, e.Token = "/home/u/src/ag", "main", "fix the tests", "1.2"
		return &e
	}
	approve := []Button{{Key: "approve", Label: "Approve"}, {Key: "deny", Label: "Deny"}}
	tests := []struct {
		name    string
		kind    string
		e       *event.Event
		title   string
		sub     string
		body    string
		buttons []Button
		reply   string
	}{
		{"permission", KindWaiting, base("waiting", "permission", "Bash", "rm -rf build"),
			"Claude Code · ag:main", "Needs permission: Bash", "rm -rf build", approve, "reply"},
		{"permission without tool", KindWaiting, base("waiting", "permission", "", ""),
			"Claude Code · ag:main", "Needs permission", "", approve, "reply"},
		{"question", KindWaiting, base("waiting", "question", "AskUserQuestion", "Which database?"),
			"Claude Code · ag:main", "Has a question", "Which database?", nil, "answer"},
		{"plan", KindWaiting, base("waiting", "plan", "ExitPlanMode", "1. a\n2. b\n3. c\n4. d\n5. e"),
			"Claude Code · ag:main", "Plan ready for review", "1. a\n2. b\n3. c\n4. d…",
			[]Button{{Key: "plan-approve", Label: "Approve plan"}, {Key: "plan-deny", Label: "Keep planning"}}, "reply"},
		{"question with options: one button each, the label as the answer", KindWaiting, func() *event.Event {
			e := base("waiting", "question", "AskUserQuestion", "Colour?")
			e.Options = []string{"Red", "Green\x1b[31m, \"leaf\"", "   ", strings.Repeat("x", 50)}
			return e
		}(), "Claude Code · ag:main", "Has a question", "Colour?", []Button{
			{Key: "answer", Label: "Red", Text: "Red"},
			{Key: "answer", Label: `Green[31m, "leaf"`, Text: "Green\x1b[31m, \"leaf\""},
			{Key: "answer", Label: strings.Repeat("x", 39) + "…", Text: strings.Repeat("x", 50)},
		}, "answer"},
		{"done", KindDone, base("done", "", "", ""),
			"Claude Code · ag:main", "Finished", "fix the tests", nil, "reply"},
		{"failed", KindFailed, base("failed", "", "", "rate_limit"),
			"Claude Code · ag:main", "Failed: rate_limit", "fix the tests", nil, ""},
		{"unknown agent: id, no buttons", KindWaiting, func() *event.Event {
			e := base("waiting", "permission", "Bash", "ls")
			e.Agent = "zed"
			return e
		}(), "zed · ag:main", "Needs permission: Bash", "ls", nil, ""},
		{"approve without deny offers neither", KindWaiting, func() *event.Event {
			e := base("waiting", "permission", "Bash", "ls")
			e.Agent = "approveonly"
			return e
		}(), "approveonly · ag:main", "Needs permission: Bash", "ls", nil, ""},
		{"ambiguous wait: informational only", KindWaiting, func() *event.Event {
			e := base("waiting", "permission", "Bash", "ls")
			e.Ambiguous = true
			return e
		}(), "Claude Code · ag:main", "Needs permission: Bash", "ls", nil, ""},
		{"estimated wait: informational only until the pane confirms it", KindWaiting, func() *event.Event {
			e := base("waiting", "permission", "Shell", "rm -rf build")
			e.Reason = event.ReasonEstimated
			return e
		}(), "Claude Code · ag:main", "May need permission: Shell", "rm -rf build", nil, ""},
		{"auto mode's hold: its own words, not an approval", KindWaiting, func() *event.Event {
			e := base("waiting", "permission", "Bash", "rm -rf build")
			e.Reason = event.ReasonUnchecked
			return e
		}(), "Claude Code · ag:main", "Auto mode can't check: Bash", "rm -rf build",
			[]Button{{Key: "approve", Label: "Stay in auto mode"}, {Key: "deny", Label: "Cancel"}}, "reply"},
		{"no cwd, no branch: short session", KindWaiting, func() *event.Event {
			e := base("waiting", "question", "", "ok?")
			e.Cwd, e.Branch = "", ""
			return e
		}(), "Claude Code · 0b5e2a61", "Has a question", "ok?", nil, "answer"},
		{"escape sequences are stripped", KindWaiting, base("waiting", "permission", "Bash", "printf '\x1b]9;pwned\x07'\r\n"),
			"Claude Code · ag:main", "Needs permission: Bash", "printf ']9;pwned'", approve, "reply"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := agents.Build(tc.kind, tc.e)
			if n.Title != tc.title || n.Subtitle != tc.sub || n.Body != tc.body {
				t.Errorf("Build = %q / %q / %q; want %q / %q / %q", n.Title, n.Subtitle, n.Body, tc.title, tc.sub, tc.body)
			}
			if !reflect.DeepEqual(n.Buttons, tc.buttons) || n.Reply != tc.reply {
				t.Errorf("Build buttons %v reply %q; want %v %q", n.Buttons, n.Reply, tc.buttons, tc.reply)
			}
			if n.Token != tc.e.Token || n.Session != tc.e.Session {
				t.Errorf("Build token/session = %q/%q", n.Token, n.Session)
			}
		})
	}
}

func TestClamp(t *testing.T) {
	tests := []struct {
		in         string
		lines, max int
		want       string
	}{
		{"short", 4, 300, "short"},
		{"a\nb\nc", 2, 300, "a\nb…"},
		{strings.Repeat("x", 10), 4, 5, "xxxx…"},
		{"\n\n  a  \n\n", 4, 300, "  a"},
		{"é" + strings.Repeat("ü", 9), 1, 5, "éüüü…"},
		{"bell\a esc\x1b[31m csi\u009b nul\x00", 1, 100, "bell esc[31m csi nul"},
		{"tab\there", 1, 100, "tab here"},
		{"bad \xff utf8", 1, 100, "bad \ufffd utf8"},
		{"rtl \u202eevil", 1, 100, "rtl evil"},
	}
	for _, tc := range tests {
		if got := Clamp(tc.in, tc.lines, tc.max); got != tc.want {
			t.Errorf("Clamp(%q, %d, %d) = %q; want %q", tc.in, tc.lines, tc.max, got, tc.want)
		}
	}
}

func TestSanitizeReply(t *testing.T) {
	tests := []struct{ in, want string }{
		{"yes", "yes"},
		{"  two\nlines\r\n", "two lines"},
		{"\x1b[2Jclear", "[2Jclear"},
		{"/help", "/help"}, // ag-keys decides, per agent
		{strings.Repeat("a", 2500), strings.Repeat("a", 2000)},
	}
	for _, tc := range tests {
		if got := SanitizeReply(tc.in); got != tc.want {
			t.Errorf("SanitizeReply(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzClamp(f *testing.F) {
	for _, s := range []string{"a\nb", "\x1b]9;x\x07", "\xff\xfe", strings.Repeat("ü\n", 50)} {
		f.Add(s, 4, 300)
	}
	f.Fuzz(func(t *testing.T, s string, lines, max int) {
		if lines < 0 || lines > 100 || max < 0 || max > 10000 {
			return
		}
		got := Clamp(s, lines, max)
		for _, r := range got {
			if r < 0x20 && r != '\n' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("Clamp(%q) = %q keeps control %U", s, got, r)
			}
		}
		if max > 0 && len([]rune(got)) > max {
			t.Fatalf("Clamp(%q, %d, %d) = %q: longer than max", s, lines, max, got)
		}
		if lines > 0 && strings.Count(got, "\n") >= lines {
			t.Fatalf("Clamp(%q, %d, %d) = %q: too many lines", s, lines, max, got)
		}
	})
}
