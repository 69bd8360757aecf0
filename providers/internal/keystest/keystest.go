// Package keystest reads a captured screen the way ag-keys does at press
// time and says what it would type, for the providers' tests.
package keystest

import (
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
