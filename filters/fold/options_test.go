package fold

import (
	"slices"
	"testing"

	"github.com/agwatch/ag/filters/event"
)

func options(o ...string) opt { return func(e *event.Event) { e.Options = o } }

// TestQuestionOptions: a question's options reach its wait, from the wait
// or from the call that asked (a hook's word "permission" first, the pane
// naming the question after), and go when the wait does.
func TestQuestionOptions(t *testing.T) {
	ask := tool("AskUserQuestion", "toolu_1")
	for _, tc := range []struct {
		name   string
		events []*event.Event
		want   []string
	}{
		{"the wait's own", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.Wait, hook, 2, run("r1"), ask, attn("question"), text("Colour?"), options("Red", "Green")),
		}, []string{"Red", "Green"}},
		{"from the call, through a permission word and the pane", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.ToolStart, hook, 2, run("r1"), ask, text("Colour?"), options("Red", "Green")),
			ev(event.Wait, hook, 3, attn("permission"), text("Claude needs your permission")),
			ev(event.Wait, pn, 4, tool("AskUserQuestion", ""), attn("question"), text("Colour?")),
		}, []string{"Red", "Green"}},
		{"not a permission's", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.ToolStart, hook, 2, run("r1"), ask, text("Colour?"), options("Red", "Green")),
			ev(event.ToolEnd, hook, 3, run("r1"), ask),
			ev(event.ToolStart, hook, 4, run("r1"), tool("Bash", "toolu_2"), text("make")),
			ev(event.Wait, hook, 5, run("r1"), tool("Bash", ""), attn("permission"), text("make")),
		}, nil},
		{"gone with the wait", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.Wait, hook, 2, run("r1"), ask, attn("question"), text("Colour?"), options("Red", "Green")),
			ev(event.ToolEnd, hook, 3, run("r1"), ask),
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFolder(t)
			f.apply(tc.events...)
			if got := f.state().Options; !slices.Equal(got, tc.want) {
				t.Errorf("options %q, want %q (state %s)", got, tc.want, event.Marshal(ptr(f.state())))
			}
		})
	}
}

// TestScreenOptions: the options the pane reads in a question's picker
// fill in where no event named any; what the agent's events say wins,
// whether it comes before the screen or after. A fold restarted from its
// state file at any step ends the same.
func TestScreenOptions(t *testing.T) {
	ask := tool("AskUserQuestion", "toolu_1")
	onScreen := tool("AskUserQuestion", "")
	for _, tc := range []struct {
		name   string
		events []*event.Event
		want   []string
	}{
		{"the pane's, where no event named any", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.Wait, hook, 2, run("r1"), ask, attn("question"), text("Colour?")),
			ev(event.Wait, pn, 3, onScreen, attn("question"), text("Colour?"), options("Red", "Green")),
		}, []string{"Red", "Green"}},
		{"the pane's, the pane raising the wait", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.Wait, pn, 2, onScreen, attn("question"), text("Colour?"), options("Red", "Green")),
		}, []string{"Red", "Green"}},
		{"the wait's own over the pane's after it", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.Wait, hook, 2, run("r1"), ask, attn("question"), text("Colour?"), options("Red", "Green, leaf")),
			ev(event.Wait, pn, 3, onScreen, attn("question"), text("Colour?"), options("Red", "Green, le")),
		}, []string{"Red", "Green, leaf"}},
		{"the wait's own over the pane's before it", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.Wait, pn, 2, onScreen, attn("question"), text("Colour?"), options("Red", "Green, le")),
			ev(event.Wait, hook, 3, run("r1"), ask, attn("question"), text("Colour?"), options("Red", "Green, leaf")),
			ev(event.Wait, pn, 4, onScreen, attn("question"), text("Colour?"), options("Red", "Green, le")),
		}, []string{"Red", "Green, leaf"}},
		{"the call's over the pane's", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.ToolStart, hook, 2, run("r1"), ask, text("Colour?"), options("Red", "Green, leaf")),
			ev(event.Wait, pn, 3, onScreen, attn("question"), text("Colour?"), options("Red", "Green, le")),
		}, []string{"Red", "Green, leaf"}},
		{"the pane's next reading", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.Wait, hook, 2, run("r1"), ask, attn("question"), text("Colour?")),
			ev(event.Wait, pn, 3, onScreen, attn("question"), text("Colour?"), options("Red")),
			ev(event.Wait, pn, 4, onScreen, attn("question"), text("Colour?"), options("Red", "Green")),
		}, []string{"Red", "Green"}},
		{"gone with the wait", []*event.Event{
			ev(event.TurnStart, hook, 1, run("r1")),
			ev(event.Wait, pn, 2, onScreen, attn("question"), text("Colour?"), options("Red", "Green")),
			ev(event.WaitEnd, pn, 3, reason("busy")),
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k := 0; k <= len(tc.events); k++ {
				f := newFolder(t)
				f.apply(tc.events[:k]...)
				g := newFolder(t)
				g.restore(f.Folder)
				g.apply(tc.events[k:]...)
				if got := g.state().Options; !slices.Equal(got, tc.want) {
					t.Errorf("restarted after step %d: options %q, want %q (state %s)", k, got, tc.want, event.Marshal(ptr(g.state())))
				}
			}
		})
	}
}

func ptr(e event.Event) *event.Event { return &e }

// TestFormNextQuestion: Codex draws a form's questions one at a time; the
// next one on the pane is a new wait, with its own options and token, so
// a button pressed for the first is refused by ag-keys.
func TestFormNextQuestion(t *testing.T) {
	f := newFolder(t)
	opts := options
	f.apply(ev(event.TurnStart, hook, 1, run("p1")),
		ev(event.ToolStart, hook, 2, tool("request_user_input", "c1")),
		ev(event.Wait, pn, 3, attn(event.AttnQuestion), tool("request_user_input", ""), text("Which size?"), opts("Small", "Large")))
	first := f.state()
	f.apply(ev(event.Wait, pn, 6, attn(event.AttnQuestion), tool("request_user_input", ""), text("Which colour?"), opts("Blue", "Green")))
	next := f.state()
	if next.Text != "Which colour?" || !slices.Equal(next.Options, []string{"Blue", "Green"}) || next.Token == first.Token {
		t.Errorf("the next question: text %q options %q token %s (the first's %s)", next.Text, next.Options, next.Token, first.Token)
	}
	// The same question read again is the same wait.
	f.apply(ev(event.Wait, pn, 7, attn(event.AttnQuestion), tool("request_user_input", ""), text("Which colour?"), opts("Blue", "Green")))
	if again := f.state(); again.Token != next.Token {
		t.Errorf("the same question read again: token %s, want %s", again.Token, next.Token)
	}
}
