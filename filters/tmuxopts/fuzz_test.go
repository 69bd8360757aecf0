package tmuxopts

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/safetext"
	"github.com/agwatch/ag/filters/safetext/safetexttest"
)

// FuzzPaneValues: whatever an agent names its tool or model, the value
// pushed into tmux cannot style a status line (#[...]), run a command
// (#(...)) — every # is doubled, which tmux shows as one — end the tmux
// command early (a trailing ;) or carry control or bidi characters, and it
// stays short.
func FuzzPaneValues(f *testing.F) {
	for _, s := range []string{"Bash", "#[fg=red]x", "#(touch pwned)", "a;", "a\\;", "\x1b[2J", "mcp__x__y", strings.Repeat("é", 100), "\xff\xfe"} {
		f.Add(s, s)
	}
	for _, s := range safetexttest.Hostile {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, tool, model string) {
		e := event.Event{Agent: "claude", Session: "s", Status: event.StatusWaiting, Tool: tool, Model: model}
		for k, v := range PaneValues(&e) {
			switch {
			case v == "":
				t.Errorf("%s is set to empty", k)
			case strings.Contains(strings.ReplaceAll(v, "##", ""), "#"):
				t.Errorf("%s = %q holds a # tmux reads", k, v)
			case strings.HasSuffix(v, ";"):
				t.Errorf("%s = %q ends in ;", k, v)
			case utf8.RuneCountInString(strings.ReplaceAll(v, "##", "#")) > 64:
				t.Errorf("%s = %q is longer than 64", k, v)
			case strings.ContainsFunc(v, unicode.IsControl) || strings.ContainsFunc(v, safetext.Bidi):
				t.Errorf("%s = %q holds a control or bidi character", k, v)
			case !utf8.ValidString(v):
				t.Errorf("%s = %q is not UTF-8", k, v)
			}
		}
	})
}
