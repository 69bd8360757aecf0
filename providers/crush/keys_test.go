package crush

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
		t.Errorf("approve %v deny %v: a allows once (never s: the whole session), d denies", k.Approve, k.Deny)
	}
	if k.PermissionPrelude != nil || k.AnswerPrelude != nil || len(k.PlanApprove) != 0 {
		t.Error("no reply on a wait, no answer, no plan")
	}
	for text, refused := range map[string]bool{"/new": true, " !ls": true, "fix it!": false, "a/b": false} {
		if got := k.UnsafeReply(text) != ""; got != refused {
			t.Errorf("UnsafeReply(%q) refused=%v; want %v", text, got, refused)
		}
	}
	b, err := os.ReadFile("testdata/screens/permission-bash.txt")
	if err != nil {
		t.Fatal(err)
	}
	rules := New().PaneRules()
	sc := panes.Classify(&rules, string(b))
	st := event.Event{Kind: event.State, Agent: ID, Session: "s", Status: event.StatusWaiting,
		Attention: sc.Attention, Tool: sc.Tool, Token: "1.1", T: event.At(time.Now())}
	for action, want := range map[string]string{provider.ActApprove: "a", provider.ActDeny: "d"} {
		p, err := keyplan.Decide(keyplan.Request{State: st, Action: action, Token: "1.1", Screen: &sc}, k)
		if err != nil || keyplan.Describe(p) != want {
			t.Errorf("%s: %v %v, want %s", action, keyplan.Describe(p), err, want)
		}
	}
}

func TestCommands(t *testing.T) {
	c := New().Commands()
	if got, err := c.ResumeCommand("3c1e0d6a-5b1f-4f61-9d0e-1f0a6a2b9c11", provider.Launch{}); err != nil || got != "command crush --session '3c1e0d6a-5b1f-4f61-9d0e-1f0a6a2b9c11'" {
		t.Errorf("resume %q %v", got, err)
	}
	if _, err := c.SpawnCommand("hi", provider.Launch{}); err == nil {
		t.Error("spawn: crush run answers once and exits; no interactive start with a prompt")
	}
	if _, err := c.ResumeCommand("x", provider.Launch{Model: "m"}); err == nil {
		t.Error("no model flag on Crush's TUI")
	}
}

func TestProcRules(t *testing.T) {
	r := New().ProcRules()
	for _, tc := range []struct {
		name string
		exe  string
		argv []string
		want provider.ProcMatch
	}{
		{"the native binary", "/usr/local/bin/crush", []string{"crush"}, provider.ProcMatch{OK: true}},
		{"npm's launcher", "/usr/bin/node", []string{"node", "/u/lib/node_modules/@charmland/crush/run-crush.js"}, provider.ProcMatch{OK: true, Launcher: true}},
		{"the binary it runs", "/u/lib/node_modules/@charmland/crush/bin/crush", []string{"/u/lib/node_modules/@charmland/crush/bin/crush", "-s", "x"}, provider.ProcMatch{OK: true}},
		{"an argument is no agent", "/usr/bin/vim", []string{"vim", "crush"}, provider.ProcMatch{}},
		{"pngcrush", "/usr/bin/pngcrush", []string{"pngcrush", "a.png"}, provider.ProcMatch{}},
	} {
		if got := r.Match(tc.exe, tc.argv); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	for argv, want := range map[string]string{
		"crush --session 3c1e0d6a-5b1f-4f61-9d0e-1f0a6a2b9c11": "3c1e0d6a-5b1f-4f61-9d0e-1f0a6a2b9c11",
		"crush -s=abc123":        "abc123",
		"crush --continue":       "",
		"crush -s":               "",
		"crush --session --yolo": "",
	} {
		if got := SessionFromArgv(strings.Fields(argv)); got != want {
			t.Errorf("SessionFromArgv(%s) = %q, want %q", argv, got, want)
		}
	}
}
