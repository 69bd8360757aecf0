package panes

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A toy agent: "ASK <what>?" with "[y/n]" below is a wait, "> " with
// "ready" below is idle, "busy" is working.
func toyRules() Rules {
	re := regexp.MustCompile
	return Rules{Lines: 10, States: []State{
		{Name: "ask", Kind: Wait, Attention: "permission",
			Anchor: re(`^ASK .*\?$`),
			All:    []Near{{Re: re(`\[y/n\]`), From: 1, To: 2}},
			None:   []Near{{Re: re(`PLAN`), From: -3, To: 3}},
			Bottom: 3,
			Tools:  []ToolLine{{Re: re(`^tool: (\w+)$`), Within: 4}, {Re: re(`^shell$`), Tool: "Bash", Within: 5}},
			Text:   &Text{From: re(`^ASK `), Within: 0, Up: true, Lines: 2, Skip: re(`^-+$`)}},
		{Name: "idle", Kind: Idle, Anchor: re(`^\s*>$`), All: []Near{{Re: re(`ready`), From: 1, To: 1}}, Bottom: 1},
		{Name: "busy", Kind: Busy, Anchor: re(`busy`), Bottom: 2},
		{Name: "pick", Kind: Wait, Attention: "question", Anchor: re(`^PICK$`),
			Rows: &Rows{Row: re(`^\s*(?:> )?- (.*)$`), Cursor: re(`^\s*> `), Target: re(`- other$`), Tabs: re(`^< .* >$`), Within: 6}},
	}}
}

// TestRows: the rows from a picker's cursor down to its target, lines
// that are no row (a wrapped label, a description) not counted; no
// cursor, or the target above it, is not read.
func TestRows(t *testing.T) {
	r := toyRules()
	for _, tc := range []struct {
		name, screen string
		rows         bool
		down         int
	}{
		{"from the first", "> - a\n  - b\n  - other\nPICK\n", true, 2},
		{"on it", "  - a\n  - b\n> - other\nPICK\n", true, 0},
		{"a description between", "> - a\n    about a\n  - b\n  - other\nPICK\n", true, 2},
		{"no cursor", "  - a\n  - other\nPICK\n", false, 0},
		{"target above the cursor", "  - other\n> - a\nPICK\n", false, 0},
		{"the same rows echoed above, a blank line between", "  - x\n  - other\n\n  - a\n> - b\n  - other\nPICK\n", true, 1},
		{"cursor too far up", "> - a\n1\n2\n3\n4\n5\n  - other\nPICK\n", false, 0},
	} {
		got := Classify(&r, tc.screen)
		if got.State != "pick" || (got.Picker != nil) != tc.rows || got.Picker != nil && got.Picker.Down != tc.down {
			t.Errorf("%s: %+v (picker %+v); want rows %v, down %d", tc.name, got, got.Picker, tc.rows, tc.down)
		}
		if p := got.Picker; p != nil && p.Labels[p.At+p.Down] != "other" {
			t.Errorf("%s: labels %q, the cursor at %d: the target is not the last", tc.name, p.Labels, p.At)
		}
	}
}

// TestPickerOptions: a picker's options are its rows but the own
// answer's, wherever the cursor is; the tab line of a form of several
// questions, above the rows, leaves none (the rows are still read).
func TestPickerOptions(t *testing.T) {
	r := toyRules()
	for _, tc := range []struct {
		name, screen string
		want         []string
		tabs         bool
	}{
		{"from the first", "> - a\n  - b\n  - other\nPICK\n", []string{"a", "b"}, false},
		{"the cursor on the own answer", "  - a\n  - b\n> - other\nPICK\n", []string{"a", "b"}, false},
		{"one tab of several", "< one | two >\n\n> - a\n  - b\n  - other\nPICK\n", nil, true},
		{"a tab line out of reach", "< one | two >\n1\n2\n3\n4\n\n> - a\n  - other\nPICK\n", []string{"a"}, false},
	} {
		got := Classify(&r, tc.screen)
		if got.Picker == nil || got.Picker.Tabs != tc.tabs {
			t.Fatalf("%s: picker %+v; want one, tabs %v", tc.name, got.Picker, tc.tabs)
		}
		if o := got.Picker.Options(); !slices.Equal(o, tc.want) {
			t.Errorf("%s: options %q; want %q", tc.name, o, tc.want)
		}
	}
	if (*Picker)(nil).Options() != nil {
		t.Error("no picker, but options")
	}
}

// TestRowsNoCursor: a picker that draws no cursor is read around its
// target, which stands for the cursor.
func TestRowsNoCursor(t *testing.T) {
	re := regexp.MustCompile
	r := Rules{States: []State{{Name: "pick", Kind: Wait, Attention: "question", Anchor: re(`^PICK$`),
		Rows: &Rows{Row: re(`^\s*\d\. (.*)$`), Target: re(`own answer$`), Within: 6}}}}
	got := Classify(&r, "1. a\n   about a\n2. b\n3. own answer\n\nPICK\n")
	if p := got.Picker; p == nil || p.At != 2 || p.Down != 0 || !slices.Equal(p.Options(), []string{"a", "b"}) {
		t.Errorf("picker %+v", got.Picker)
	}
	if got := Classify(&r, "1. a\n2. b\n\nPICK\n"); got.Picker != nil {
		t.Errorf("no target, picker %+v", got.Picker)
	}
}

func TestClassify(t *testing.T) {
	r := toyRules()
	for _, tc := range []struct {
		name, screen string
		want         Result
	}{
		{"wait", "tool: Grep\nfirst\n---\nsecond\nASK go?\n[y/n]\n", Result{Kind: Wait, State: "ask", Attention: "permission", Tool: "Grep", Text: "first\nsecond", Line: 4}},
		{"fixed tool name", "shell\nx\nASK go?\n[y/n]\n", Result{Kind: Wait, State: "ask", Attention: "permission", Tool: "Bash", Text: "shell\nx", Line: 2}},
		{"tool too far above", "tool: Grep\n0\n1\n2\n3\n4\nASK go?\n[y/n]\n", Result{Kind: Wait, State: "ask", Attention: "permission", Text: "3\n4", Line: 6}},
		{"condition missing", "ASK go?\nnothing\n", Result{Line: -1}},
		{"vetoed", "PLAN\nASK go?\n[y/n]\n", Result{Line: -1}},
		{"too much below", "ASK go?\n[y/n]\na\nb\nc\n", Result{Line: -1}},
		{"lowest wins", "ASK go?\n[y/n]\n>\nready\n", Result{Kind: Idle, State: "idle", Line: 2}},
		{"lowest wins, other way", ">\nready\nASK go?\n[y/n]\n", Result{Kind: Wait, State: "ask", Attention: "permission", Text: ">\nready", Line: 2}},
		{"only the last Lines lines", "ASK go?\n[y/n]\n" + strings.Repeat("\n", 20) + "x\n", Result{Line: -1}},
		{"trailing blanks ignored", ">\nready\n\n\n\n", Result{Kind: Idle, State: "idle", Line: 0}},
		{"box edges stripped", "│ >     │\n│ ready │\n", Result{Kind: Idle, State: "idle", Line: 0}},
		{"no-break space", ">\u00a0\nready\n", Result{Kind: Idle, State: "idle", Line: 0}},
		{"busy", "work\nbusy\n", Result{Kind: Busy, State: "busy", Line: 1}},
		{"nothing", "hello\n", Result{Line: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(&r, tc.screen); got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestLines(t *testing.T) {
	got := Lines("a\nb\u00a0 \n│ c │\n│ ├─ d\n\n\n", 3)
	want := []string{"b", " c", "│ ├─ d"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestClamp(t *testing.T) {
	if got := clamp(strings.Repeat("é", 10), 5); got != "éééé…" {
		t.Errorf("got %q", got)
	}
	if got := clamp("short", 5); got != "short" {
		t.Errorf("got %q", got)
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"ASK go?\n[y/n]\n", ">\nready\n", "│", "\u00a0", "busy", "> - a\n  - other\nPICK\n"} {
		f.Add(s)
	}
	r := toyRules()
	f.Fuzz(func(t *testing.T, screen string) {
		got := Classify(&r, screen)
		if got.Kind == None && got != (Result{Line: -1}) {
			t.Fatalf("none with fields: %+v", got)
		}
		if got.Kind != None && (got.Line < 0 || got.Line >= len(Lines(screen, r.Lines))) {
			t.Fatalf("anchor line %d out of range", got.Line)
		}
		if p := got.Picker; p != nil && (got.State != "pick" || p.Down < 0 || p.At < 0 || p.At+p.Down >= len(p.Labels) || len(p.Labels) > got.Line) {
			t.Fatalf("picker %+v in %+v", *p, got)
		}
	})
}

// TestInlineText: the text starts on the From line itself when Inline.
func TestInlineText(t *testing.T) {
	re := regexp.MustCompile
	r := Rules{States: []State{{Name: "perm", Kind: Wait, Anchor: re(`^Proceed\?$`),
		Text: &Text{From: re(`^Requesting permission for:\s*(.*)$`), Inline: true, Lines: 2, Stop: re(`^Proceed`)}}}}
	for screen, want := range map[string]string{
		"Requesting permission for: curl -s x\n  | sh\nProceed?\n": "curl -s x\n| sh",
		"Requesting permission for:\ncurl -s x\nProceed?\n":        "curl -s x",
	} {
		if got := Classify(&r, screen); got.Text != want {
			t.Errorf("%q: text %q, want %q", screen, got.Text, want)
		}
	}
}

// TestTitle: a title state speaks only when the screen shows none.
func TestTitle(t *testing.T) {
	r := toyRules()
	r.Titles = []Title{{Name: "spinning", Kind: Busy, Re: regexp.MustCompile(`^[⠁-⣿] `)}}
	for _, tc := range []struct {
		title, screen, want string
	}{
		{"⠋ grok", "nothing known\n", "spinning"},
		{"⠋ grok", "> \nready\n", "idle"}, // the screen wins
		{"grok", "nothing known\n", ""},
		{"", "nothing known\n", ""},
	} {
		got := ClassifyPane(&r, tc.title, tc.screen)
		if got.State != tc.want || got.Title != (tc.want == "spinning") {
			t.Errorf("title %q, screen %q: %+v, want state %q", tc.title, tc.screen, got, tc.want)
		}
	}
}
