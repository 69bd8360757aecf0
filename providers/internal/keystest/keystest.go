// Package keystest reads a captured screen the way ag-keys does at press
// time and says what it would type, for the providers' tests.
package keystest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/provider"
)

// Answer is what km types for `ag-keys answer text` on screen, read with
// rules, while agent's session waits on a question; the test fails when
// the screen reads as no question or the answer is refused.
func Answer(t testing.TB, rules panes.Rules, km provider.KeyMap, agent, screen, text string) string {
	t.Helper()
	sc := panes.Classify(&rules, screen)
	if sc.Attention != event.AttnQuestion {
		t.Fatalf("not a question: %+v", sc)
	}
	st := event.Event{Kind: event.State, Agent: agent, Session: "s", Status: event.StatusWaiting,
		Attention: event.AttnQuestion, Tool: sc.Tool, Token: "1.1", T: event.At(time.Now())}
	p, err := keyplan.Decide(keyplan.Request{State: st, Action: provider.ActAnswer, Text: text, Token: "1.1", Screen: &sc}, km)
	if err != nil {
		t.Fatalf("answer %q: %v", text, err)
	}
	return keyplan.Describe(p)
}

// Options is a recorded screen (a file of testdata/screens), the options
// ag-detect reads in it (keyplan.Options: the labels of a question's
// picker that an answer picks by label) and what answering with each
// types.
type Options struct {
	Screen string
	Want   []string
	Keys   []string
}

// CheckOptions checks every case: the options read, each answered by its
// own keys.
func CheckOptions(t *testing.T, rules panes.Rules, km provider.KeyMap, agent string, cases []Options) {
	t.Helper()
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", "screens", c.Screen))
		if err != nil {
			t.Fatal(err)
		}
		sc := panes.Classify(&rules, string(b))
		got := keyplan.Options(km, &sc)
		if !slices.Equal(got, c.Want) {
			t.Errorf("%s: options %q, want %q", c.Screen, got, c.Want)
			continue
		}
		for i, o := range got {
			if k := Answer(t, rules, km, agent, string(b), o); i >= len(c.Keys) || k != c.Keys[i] {
				t.Errorf("%s: option %q types %s, want %q", c.Screen, o, k, c.Keys)
			}
		}
	}
}

// Press is what km types for `ag-keys action text` on screen, read with
// rules, while agent's session is in status (waiting on attention), or
// "refused: " and why.
func Press(rules panes.Rules, km provider.KeyMap, agent, status, attention, screen, action, text string) string {
	sc := panes.Classify(&rules, screen)
	st := event.Event{Kind: event.State, Agent: agent, Session: "s", Status: status, Attention: attention, Token: "1.1", T: event.At(time.Now())}
	p, err := keyplan.Decide(keyplan.Request{State: st, Action: action, Text: text, Token: "1.1", Screen: &sc}, km)
	if err != nil {
		return "refused: " + err.Error()
	}
	return keyplan.Describe(p)
}
