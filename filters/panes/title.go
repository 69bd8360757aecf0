package panes

import "regexp"

// Title is a state told by the pane's title (tmux's #{pane_title}, which
// an agent sets with an escape sequence): a spinner glyph while it works,
// a marker while it waits. A title names no tool and no text, so it is
// the weaker witness: it speaks only when the screen shows none of the
// states.
type Title struct {
	Name      string
	Kind      Kind
	Attention string // for Wait
	Re        *regexp.Regexp
}

// ClassifyPane is Classify with the pane's title: a state the screen shows
// wins; when it shows none, the first Title whose pattern matches title.
func ClassifyPane(r *Rules, title, screen string) Result {
	res := Classify(r, screen)
	if res.Kind != None || title == "" {
		return res
	}
	for _, t := range r.Titles {
		if t.Re.MatchString(title) {
			return Result{Kind: t.Kind, State: t.Name, Attention: t.Attention, Line: -1, Title: true}
		}
	}
	return res
}
