package omp

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/internal/keystest"
	"github.com/agwatch/ag/providers/provider"
)

func screen(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/screens/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPaneRules(t *testing.T) {
	rules := New().PaneRules()
	r := panes.Classify(&rules, screen(t, "approval.txt"))
	if r.State != "approval" || r.Attention != "permission" || r.Tool != "bash" || r.Text != "echo marker > marker.txt" {
		t.Errorf("Classify = %+v", r)
	}
	// 40 columns: the footer wraps its "cancel" onto a line of its own.
	r = panes.Classify(&rules, screen(t, "approval-40x16.txt"))
	if r.State != "approval" || r.Attention != "permission" || r.Tool != "bash" || r.Text != "echo narrow > narrow.txt" {
		t.Errorf("Classify at 40 columns = %+v", r)
	}
	if r := panes.Classify(&rules, "  the model said: up/down navigate  enter select  esc cancel\n"); r.Kind != panes.None {
		t.Errorf("a line that only looks like the footer: %+v", r)
	}
}

// The ask picker (omp 18.2.3, captured): the question, and how far the
// cursor is from "Other (type your own)" — three rows from the first
// option, none once moved there. The custom answer's input, read aside.
func TestAskPicker(t *testing.T) {
	rules := New().PaneRules()
	multi := strings.NewReplacer("○", "☐", "Enter select · n note · ↑/↓ move · Esc cancel", "Space toggle · Enter next · ↑/↓ move · Tab/←/→ · Esc cancel").Replace(screen(t, "ask.txt"))
	for _, c := range []struct {
		name, screen string
		rows         bool
		down         int
		state, text  string
	}{
		{"cursor on the first option", screen(t, "ask.txt"), true, 3, paneAsk, "Which colour?"},
		{"cursor on Other", screen(t, "ask-other.txt"), true, 0, paneAsk, "Which colour?"},
		{"several answers: not read", multi, false, 0, "", ""},
	} {
		r := panes.Classify(&rules, c.screen)
		if r.State != c.state || (r.Picker != nil) != c.rows || r.Picker != nil && r.Picker.Down != c.down || r.Text != c.text {
			t.Errorf("%s: Classify = %+v (picker %+v); want %s, rows %v down %d, text %q", c.name, r, r.Picker, c.state, c.rows, c.down, c.text)
		}
		if c.state != "" && (r.Attention != event.AttnQuestion || r.Tool != "ask") {
			t.Errorf("%s: attention %q tool %q", c.name, r.Attention, r.Tool)
		}
	}
	input := rules.Only([]string{paneCustom})
	if r := panes.Classify(&input, screen(t, "ask-typed.txt")); r.State != paneCustom || r.Text != "Purple please" {
		t.Errorf("the custom answer's input: %+v", r)
	}
	if r := panes.Classify(&rules, screen(t, "ask-typed.txt")); r.State == paneCustom {
		t.Errorf("the input (aside) classified as the pane's state: %+v", r)
	}
}

// An answer to omp's question: Down to Other as the pane counts, Enter,
// the text, Enter once the input shows it; refused when the pane shows no
// picker (a question of several answers, or none at all).
func TestAnswerKeys(t *testing.T) {
	rules, km := New().PaneRules(), New().Keys()
	st := event.Event{Kind: event.State, Agent: ID, Session: "s", Status: event.StatusWaiting, Attention: event.AttnQuestion, Tool: "ask", Token: "1.1", T: event.At(time.Now())}
	for _, c := range []struct {
		name, screen, want string
	}{
		{"first option", screen(t, "ask.txt"), `Down, 30ms, Down, 30ms, Down, 30ms, Enter, 150ms, "Purple please", 150ms, Enter once shown`},
		{"on Other", screen(t, "ask-other.txt"), `Enter, 150ms, "Purple please", 150ms, Enter once shown`},
	} {
		sc := panes.Classify(&rules, c.screen)
		p, err := keyplan.Decide(keyplan.Request{State: st, Action: provider.ActAnswer, Text: "Purple please", Token: "1.1", Screen: &sc}, km)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := keyplan.Describe(p); got != c.want {
			t.Errorf("%s: %s\nwant %s", c.name, got, c.want)
		}
		if last := p.Steps[len(p.Steps)-1]; !last.Shown {
			t.Errorf("%s: the last Enter does not wait for the input to show the text", c.name)
		}
	}
	// An answer that is one of the options picks it, whichever row the
	// cursor is on; a case of its own is no option.
	for _, c := range []struct{ screen, text, want string }{
		{"ask.txt", "green", `Down, 30ms, Enter`},
		{"ask.txt", "Blue", `Enter`},
		{"ask-other.txt", "Blue", `Up, 30ms, Up, 30ms, Up, 30ms, Enter`},
		{"ask.txt", "Other (type your own)", `Down, 30ms, Down, 30ms, Down, 30ms, Enter, 150ms, "Other (type your own)", 150ms, Enter once shown`},
	} {
		if got := keystest.Answer(t, rules, km, ID, screen(t, c.screen), c.text); got != c.want {
			t.Errorf("%s on %s: %s\nwant %s", c.text, c.screen, got, c.want)
		}
	}
	none := panes.Classify(&rules, "")
	if _, err := keyplan.Decide(keyplan.Request{State: st, Action: provider.ActAnswer, Text: "x", Token: "1.1", Screen: &none}, km); err == nil {
		t.Error("an answer typed with no picker on the pane")
	}
}

// TestScreenOptions: the options ag-detect reads in the recorded ask
// pickers, each reached by Up or Down and Enter; "Other" is none.
func TestScreenOptions(t *testing.T) {
	keystest.CheckOptions(t, New().PaneRules(), New().Keys(), ID, []keystest.Options{
		{Screen: "ask.txt", Want: []string{"Blue", "Green", "Red"}, Keys: []string{"Enter", "Down, 30ms, Enter", "Down, 30ms, Down, 30ms, Enter"}},
		{Screen: "ask-other.txt", Want: []string{"Blue", "Green", "Red"}, Keys: []string{"Up, 30ms, Up, 30ms, Up, 30ms, Enter", "Up, 30ms, Up, 30ms, Enter", "Up, 30ms, Enter"}},
		{Screen: "approval.txt"},
	})
}
