package auggie

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

func TestKeys(t *testing.T) {
	k := New().Keys()
	if strings.Join(k.Approve, " ") != "a" || strings.Join(k.Deny, " ") != "d" {
		t.Errorf("approve %v deny %v", k.Approve, k.Deny)
	}
	if k.PermissionPrelude != nil || k.AnswerPrelude != nil || k.PlanPrelude != nil || len(k.PlanApprove) != 0 {
		t.Error("Escape does nothing at the dialog: no reply on a wait; no question, no plan")
	}
	if k.FinishedPrelude == nil || len(k.FinishedPrelude) != 0 || k.DefuseLeading != " " {
		t.Error("a finished reply goes straight in, a leading / defused by a space")
	}
	for text, refused := range map[string]bool{
		"!rm -rf x":  true,
		"  !ls":      true,
		"/help":      false, // defused
		"fix it!":    false,
		"":           false,
		"ok / maybe": false,
	} {
		if got := k.UnsafeReply(text) != ""; got != refused {
			t.Errorf("UnsafeReply(%q) refused=%v; want %v", text, got, refused)
		}
	}
}

// What ag-keys types at each captured dialog, and that it types nothing
// when the screen shows no dialog (a reply that quotes one).
func TestKeysOnScreens(t *testing.T) {
	rules, km := New().PaneRules(), New().Keys()
	for _, tc := range []struct{ screen, action, want string }{
		{"permission", provider.ActApprove, "a"},
		{"permission-long", provider.ActDeny, "d"},
		{"permission-save", provider.ActApprove, "a"},
	} {
		b, err := os.ReadFile("testdata/screens/" + tc.screen + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		sc := panes.Classify(&rules, string(b))
		st := event.Event{Kind: event.State, Agent: ID, Session: "s", Status: event.StatusWaiting,
			Attention: sc.Attention, Tool: sc.Tool, Token: "1.1", T: event.At(time.Now())}
		p, err := keyplan.Decide(keyplan.Request{State: st, Action: tc.action, Token: "1.1", Screen: &sc}, km)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.screen, tc.action, err)
		}
		if got := keyplan.Describe(p); got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.screen, tc.action, got, tc.want)
		}
	}
}

func TestCommands(t *testing.T) {
	c := New().Commands()
	const id = "5551331a-33cb-4f84-a038-fb6502ad1878"
	for _, tc := range []struct {
		name string
		got  func() (string, error)
		want string
	}{
		{"resume", func() (string, error) { return c.ResumeCommand(id, provider.Launch{}) }, "command auggie --resume '" + id + "'"},
		{"resume with a model", func() (string, error) { return c.ResumeCommand(id, provider.Launch{Model: "sonnet4.5"}) },
			"command auggie --resume '" + id + "' --model sonnet4.5"},
		{"spawn", func() (string, error) { return c.SpawnCommand("it's $HOME", provider.Launch{}) }, `command auggie 'it'\''s $HOME'`},
		{"spawn with a model", func() (string, error) { return c.SpawnCommand("hi", provider.Launch{Model: "fake-model"}) },
			"command auggie --model fake-model 'hi'"},
	} {
		got, err := tc.got()
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := c.ForkCommand("/x/"+id+".jsonl", provider.Launch{}); err == nil {
		t.Error("no fork for Auggie")
	}
}

func TestProcRules(t *testing.T) {
	r := New().ProcRules()
	bin := "/home/u/.npm-global/lib/node_modules/.bin/auggie"
	for _, tc := range []struct {
		name string
		exe  string
		argv []string
		want provider.ProcMatch
	}{
		{"the pane's node process", "/usr/bin/node", []string{"node", bin, "--permission", "launch-process:ask-user"}, provider.ProcMatch{OK: true}},
		{"by package path", "/usr/bin/node", []string{"node", "/x/node_modules/@augmentcode/auggie/augment.mjs"}, provider.ProcMatch{OK: true}},
		{"a title set", "/usr/bin/node", []string{"auggie"}, provider.ProcMatch{OK: true}},
		{"an argument is no agent", "/usr/bin/vim", []string{"vim", "auggie"}, provider.ProcMatch{}},
		{"another node program", "/usr/bin/node", []string{"node", "server.js", "auggie"}, provider.ProcMatch{}},
	} {
		if got := r.Match(tc.exe, tc.argv); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	for argv, want := range map[string]string{
		"auggie --resume 5551331A-33CB-4F84-A038-FB6502AD1878":       "5551331a-33cb-4f84-a038-fb6502ad1878",
		"auggie -r 5551331a-33cb-4f84-a038-fb6502ad1878 -m fake":     "5551331a-33cb-4f84-a038-fb6502ad1878",
		"auggie --resume=5551331a-33cb-4f84-a038-fb6502ad1878":       "5551331a-33cb-4f84-a038-fb6502ad1878",
		"auggie session resume 5551331a-33cb-4f84-a038-fb6502ad1878": "5551331a-33cb-4f84-a038-fb6502ad1878",
		"auggie --resume 5551":                               "",
		"auggie resume 5551331a-33cb-4f84-a038-fb6502ad1878": "",
		"auggie --resume":                                    "",
		"auggie 'fix the build'":                             "",
	} {
		if got := SessionFromArgv(strings.Fields(argv)); got != want {
			t.Errorf("SessionFromArgv(%s) = %q, want %q", argv, got, want)
		}
	}
}
