// Package panes classifies what an agent's terminal shows: a permission
// prompt, a question picker, a plan approval, an idle composer or a working
// spinner. The patterns are data each provider supplies (Rules); this package
// is the engine that runs them over the bottom of `tmux capture-pane`.
//
// A screen state is recognised by an anchor line plus conditions on the lines
// around it. When several states match — an old prompt left in the scrollback
// above a fresh idle composer — the one anchored lowest wins, because a
// terminal UI draws its live region at the bottom. A state may also insist
// that little follows its anchor (Bottom), so text that scrolled up never
// counts as what is on screen now.
package panes

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Kind is what a screen state means for the session.
type Kind int

const (
	None Kind = iota // nothing recognised: say nothing
	Wait             // blocked on the user (Attention says why)
	Idle             // the input composer, nothing at work: positively idle
	Busy             // working (spinner): never a wait, never idle
)

func (k Kind) String() string {
	switch k {
	case Wait:
		return "wait"
	case Idle:
		return "idle"
	case Busy:
		return "busy"
	}
	return "none"
}

// Rules are one agent's screen states, most specific first (on a tie of
// anchor lines the earlier state wins).
type Rules struct {
	Lines  int // lines from the bottom to examine; 0 means 40
	States []State
	// Titles are states told by the pane's title (see ClassifyPane).
	Titles []Title
	// Turns: the screen alone says when the agent works and when it has
	// finished (an agent with no hooks and no transcript ag reads), so a
	// busy screen after an idle one starts a turn and an idle one after a
	// busy one ends it.
	Turns bool
}

// State is one recognisable screen.
type State struct {
	Name      string // for tests and --debug: "permission", "idle", ...
	Kind      Kind
	Attention string // for Wait: permission, question, plan

	// Needs are lower-case substrings of which at least one must be on the
	// examined screen for the state to be tried at all: a cheap prefilter,
	// since most screens are none of most states.
	Needs  []string
	Anchor *regexp.Regexp // the line that places the state
	All    []Near         // each must match a line in its range
	Any    []Near         // at least one must match, if any are given
	None   []Near         // none may match
	// Bottom is how many non-blank lines may follow the anchor; 0 means any.
	Bottom int

	// Aside keeps the state out of Classify: a caller that asks for it
	// reads it alone, in a copy without Aside (keys waiting for a
	// prompt's input to show what was typed: Only).
	Aside bool

	Tool  string     // the pending tool when fixed by the state (AskUserQuestion)
	Tools []ToolLine // else the nearest tool header above the anchor
	Text  *Text      // what is pending: the command, question or plan; at a composer, the draft it holds
	Rows  *Rows      // a picker's rows, its cursor and a target row (Result.Picker)
}

// Rows reads a picker above the anchor (within Within lines): the rows
// are the lines matching Row (its first group, if any, the row's label),
// the cursor's the nearest matching Cursor, the target the nearest
// matching Target at or below it. Picker.Down is how many rows the cursor
// must move down to reach the target: omp's own answer ("Other (type your
// own)") is reached only so, the picker taking no digit, End or
// wrap-around. A label wrapped onto a second line, or a description under
// it, is not a row. Without a Cursor (a picker that marks it by colour
// alone) the target's row stands for it: At is the target's, Down 0.
type Rows struct {
	Row, Cursor, Target *regexp.Regexp
	Not                 *regexp.Regexp // no picker is read when a line of it matches (optional)
	// Tabs matches the tab line of a form of several questions, within
	// Within lines above the anchor (optional): the picker is read, for
	// the tab on screen, but its rows are no one question's options
	// (Picker.Tabs).
	Tabs   *regexp.Regexp
	Within int
}

// Near is a pattern that must (or must not) match a line within From..To
// lines of the anchor (negative is above, 0 the anchor itself).
type Near struct {
	Re       *regexp.Regexp
	From, To int
}

// ToolLine names the tool when a line above the anchor (within Within
// lines) matches Re: Tool, or Re's first group when Tool is empty.
type ToolLine struct {
	Re     *regexp.Regexp
	Tool   string
	Within int
}

// Text says where the pending text is: start at the nearest line above the
// anchor matching From (within Within lines; 0 means the whole examined
// region), then take up to Lines non-blank lines below it — or above it when
// Up is set — skipping lines that match Skip and stopping at the anchor or a
// line matching Stop.
type Text struct {
	From   *regexp.Regexp
	Within int
	Up     bool
	Lines  int
	Skip   *regexp.Regexp
	Stop   *regexp.Regexp
	Cut    *regexp.Regexp // removed from the start of each line taken (Codex's "$ " before a command)
	// CutEnd is removed from the end of each line taken, from its first
	// match on: the right edge of a box drawn away from the screen's left
	// edge (which Lines does not strip), and what is beside it; Qwen's
	// scrollbar.
	CutEnd *regexp.Regexp
	Max    int // clamp in runes; 0 means 500
	// Inline: From's first group, on the From line itself, is the text's
	// first line ("Requesting permission for: <command>").
	Inline bool
}

// Only is r with just the named states, Aside or not.
func (r *Rules) Only(names []string) Rules {
	only := Rules{Lines: r.Lines, Turns: r.Turns}
	for _, st := range r.States {
		if slices.Contains(names, st.Name) {
			st.Aside = false
			only.States = append(only.States, st)
		}
	}
	return only
}

// Result is what a screen shows.
type Result struct {
	Kind      Kind
	State     string // the matching State's Name
	Attention string
	Tool      string
	Text      string
	Line      int     // the anchor's index in the examined lines; -1 for a title's
	Picker    *Picker // the picker State.Rows read, nil if none
	Title     bool    // told by the pane's title, not its screen
}

// Picker is a picker's rows as the pane shows them.
type Picker struct {
	Labels []string // the rows' labels, top to bottom
	At     int      // the cursor's row among them
	Down   int      // how many rows down from the cursor the target row is
	Tabs   bool     // one tab of a form of several questions (Rows.Tabs)
}

// Options are the picker's rows but its target (the own answer's row):
// the question's options, as the dialog draws them. A tab of a form of
// several questions has none: what it shows is one question's of many.
func (p *Picker) Options() []string {
	if p == nil || p.Tabs {
		return nil
	}
	var out []string
	for i, l := range p.Labels {
		if i != p.At+p.Down && l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Classify runs rules over a captured screen.
func Classify(r *Rules, screen string) Result {
	lines := Lines(screen, r.Lines)
	lower := ""
	best := Result{Line: -1}
	var bestState *State
	for i := range r.States {
		s := &r.States[i]
		if s.Aside {
			continue
		}
		if len(s.Needs) > 0 {
			if lower == "" {
				lower = strings.ToLower(strings.Join(lines, "\n"))
			}
			if !containsAny(lower, s.Needs) {
				continue
			}
		}
		at := s.find(lines)
		if at < 0 || at <= best.Line {
			continue
		}
		best = Result{Kind: s.Kind, State: s.Name, Attention: s.Attention, Line: at}
		bestState = s
	}
	if bestState == nil {
		return Result{Line: -1}
	}
	if bestState.Kind == Wait {
		best.Tool = bestState.tool(lines, best.Line)
	}
	if bestState.Text != nil {
		best.Text = bestState.Text.extract(lines, best.Line)
	}
	if bestState.Rows != nil {
		bestState.Rows.read(lines, &best)
	}
	return best
}

// read finds the picker above the anchor: its cursor's row (the nearest
// matching Cursor, within Within lines) and the run of lines around it
// that hold a letter or digit (a blank line or a border of box characters
// ends a picker: the options echoed in the chat above it are not its
// rows), the target at or below the cursor: res.Picker.
func (r *Rows) read(lines []string, res *Result) {
	// No Cursor: the picker draws it in colour alone (OpenCode), and the
	// rows are read around the target's, which stands for the cursor.
	mark := r.Cursor
	if mark == nil {
		mark = r.Target
	}
	cursor := -1
	for i := res.Line - 1; i >= 0 && res.Line-i <= r.Within; i-- {
		if r.Row.MatchString(lines[i]) && mark.MatchString(lines[i]) {
			cursor = i
			break
		}
	}
	if cursor < 0 {
		return
	}
	top, end := cursor, cursor+1
	for top > 0 && worded(lines[top-1]) {
		top--
	}
	for end < res.Line && worded(lines[end]) {
		end++
	}
	var labels []string
	at, target := -1, -1
	for i := top; i < end; i++ {
		if r.Not != nil && r.Not.MatchString(lines[i]) {
			return
		}
		m := r.Row.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		if i == cursor {
			at = len(labels)
		}
		if at >= 0 && target < 0 && r.Target.MatchString(lines[i]) {
			target = len(labels)
		}
		label := m[0]
		if len(m) > 1 {
			label = m[1]
		}
		labels = append(labels, strings.TrimSpace(label))
	}
	if target < 0 {
		return
	}
	res.Picker = &Picker{Labels: labels, At: at, Down: target - at}
	for i := res.Line - 1; r.Tabs != nil && i >= 0 && res.Line-i <= r.Within; i-- {
		if r.Tabs.MatchString(lines[i]) {
			res.Picker.Tabs = true
			break
		}
	}
}

// worded reports whether a line holds a letter or digit: not blank, not a
// border.
func worded(l string) bool {
	return strings.IndexFunc(l, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }) >= 0
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Lines splits a captured screen into its last n lines (40 when n is 0)
// after trimming trailing blank lines, each normalised: trailing spaces and
// the box edges (│) some versions draw around dialogs removed.
func Lines(screen string, n int) []string {
	if n <= 0 {
		n = 40
	}
	all := strings.Split(screen, "\n")
	end := len(all)
	for end > 0 && strings.TrimSpace(all[end-1]) == "" {
		end--
	}
	start := end - n
	if start < 0 {
		start = 0
	}
	out := make([]string, 0, end-start)
	for _, l := range all[start:end] {
		out = append(out, normalise(l))
	}
	return out
}

func normalise(l string) string {
	// Claude draws its composer as "❯" + NO-BREAK SPACE; RE2's \s is ASCII.
	if strings.Contains(l, "\u00a0") {
		l = strings.ReplaceAll(l, "\u00a0", " ")
	}
	l = strings.TrimRight(l, " \t\r")
	// A dialog box: "│ text   │" → " text". Only strip a matching pair of
	// edges, so a tree drawing like "│ ├─ file" survives.
	if strings.HasPrefix(l, "│") && strings.HasSuffix(l, "│") && len(l) > len("│") {
		l = strings.TrimSuffix(strings.TrimPrefix(l, "│"), "│")
		l = strings.TrimRight(l, " ")
		if strings.HasPrefix(l, " │") && strings.HasSuffix(l, "│") { // nested box
			l = strings.TrimRight(strings.TrimSuffix(strings.TrimPrefix(l, " │"), "│"), " ")
		}
	}
	return l
}

// find returns the lowest line index where the state is seen, or -1.
func (s *State) find(lines []string) int {
	below := 0 // non-blank lines below line i
	for i := len(lines) - 1; i >= 0; i-- {
		if s.Bottom > 0 && below > s.Bottom {
			return -1 // everything further up has even more below it
		}
		if s.Anchor.MatchString(lines[i]) && s.holds(lines, i) {
			return i
		}
		if strings.TrimSpace(lines[i]) != "" {
			below++
		}
	}
	return -1
}

func (s *State) holds(lines []string, at int) bool {
	for _, c := range s.All {
		if !c.matches(lines, at) {
			return false
		}
	}
	if len(s.Any) > 0 {
		ok := false
		for _, c := range s.Any {
			if c.matches(lines, at) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for _, c := range s.None {
		if c.matches(lines, at) {
			return false
		}
	}
	return true
}

func (c Near) matches(lines []string, at int) bool {
	from, to := at+c.From, at+c.To
	if from < 0 {
		from = 0
	}
	if to > len(lines)-1 {
		to = len(lines) - 1
	}
	for i := from; i <= to; i++ {
		if c.Re.MatchString(lines[i]) {
			return true
		}
	}
	return false
}

func (s *State) tool(lines []string, at int) string {
	if s.Tool != "" {
		return s.Tool
	}
	for i := at; i >= 0; i-- {
		for _, t := range s.Tools {
			if at-i > t.Within {
				continue
			}
			if t.Tool != "" {
				if t.Re.MatchString(lines[i]) {
					return t.Tool
				}
			} else if m := t.Re.FindStringSubmatch(lines[i]); len(m) > 1 {
				return m[1]
			}
		}
	}
	return ""
}

func (t *Text) extract(lines []string, at int) string {
	start := -1
	for i := at; i >= 0; i-- {
		if t.Within > 0 && at-i > t.Within {
			break
		}
		if t.From.MatchString(lines[i]) {
			start = i
			break
		}
	}
	if start < 0 {
		return ""
	}
	want := t.Lines
	if want <= 0 {
		want = 1
	}
	var got []string
	if t.Inline {
		if m := t.From.FindStringSubmatch(lines[start]); len(m) > 1 && strings.TrimSpace(m[1]) != "" {
			got = append(got, strings.TrimSpace(m[1]))
		}
	}
	step, end := 1, at
	if t.Up {
		step, end = -1, -1
	}
	for i := start + step; i != end && i >= 0 && i < len(lines) && len(got) < want; i += step {
		l := strings.TrimSpace(lines[i])
		if t.Stop != nil && t.Stop.MatchString(lines[i]) {
			break
		}
		if l == "" || (t.Skip != nil && t.Skip.MatchString(lines[i])) {
			continue
		}
		if t.Cut != nil {
			if m := t.Cut.FindStringIndex(l); m != nil && m[0] == 0 {
				l = strings.TrimSpace(l[m[1]:])
			}
		}
		if t.CutEnd != nil {
			if m := t.CutEnd.FindStringIndex(l); m != nil {
				l = strings.TrimSpace(l[:m[0]])
			}
		}
		got = append(got, l)
	}
	if t.Up {
		for i, j := 0, len(got)-1; i < j; i, j = i+1, j-1 {
			got[i], got[j] = got[j], got[i]
		}
	}
	max := t.Max
	if max <= 0 {
		max = 500
	}
	return clamp(strings.Join(got, "\n"), max)
}

func clamp(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
