package claude

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agwatch/ag/filters/keyplan"
	"github.com/agwatch/ag/filters/panes"
	"github.com/agwatch/ag/providers/internal/keystest"
)

// An answer to the AskUserQuestion picker (screens captured from Claude
// Code 2.1.197): an option's label is its digit; other text goes into
// "Type something." (its digit, the text, Enter); a multi-select, and a
// picker whose cursor sits below the options, fall back to Escape and the
// text as the next message.
func TestAnswerKeys(t *testing.T) {
	const rule = "────────────────────────────────────────\n"
	below := rule + " ☐ Tests\n\nShould I also add a benchmark?\n\n  1. Yes\n  2. No\n  3. Type something.\n" + rule + "\n❯ 4. Chat about this\n\nEnter to select · ↑/↓ to navigate · Esc to cancel\n"
	for _, c := range []struct{ screen, text, want string }{
		{"question-picker.txt", "python", `2`},
		{"question-picker.txt", "Go", `1`},
		{"question-picker.txt", "Rust, please", `3, 150ms, "Rust, please", 150ms, Enter`},
		{"question-picker-2.txt", "Rust", `3, 150ms, "Rust", 150ms, Enter`},
		{"question-multi.txt", "Tests", `Escape, 150ms, "Tests", 150ms, Enter`},
		{"", "Yes", `Escape, 150ms, "Yes", 150ms, Enter`},
	} {
		screen := below
		if c.screen != "" {
			b, err := os.ReadFile(filepath.Join("testdata", "screens", c.screen))
			if err != nil {
				t.Fatal(err)
			}
			screen = string(b)
		}
		if got := keystest.Answer(t, New().PaneRules(), New().Keys(), ID, screen, c.text); got != c.want {
			t.Errorf("%s %q: %s\nwant %s", c.screen, c.text, got, c.want)
		}
	}
}

// TestScreenOptions: the options ag-detect reads in the recorded pickers
// (the buttons for a question no hook named options for), each answered
// by its own digit; several questions' tabs and a multi-select have none.
func TestScreenOptions(t *testing.T) {
	keystest.CheckOptions(t, New().PaneRules(), New().Keys(), ID, []keystest.Options{
		{Screen: "question-picker.txt", Want: []string{"Go", "Python"}, Keys: []string{"1", "2"}},
		{Screen: "question-picker-2.txt", Want: []string{"Go", "Python"}, Keys: []string{"1", "2"}},
		{Screen: "question-multi.txt"},
		{Screen: "permission-bash.txt"},
	})
}

// BenchmarkScreenOptions: what ag-detect adds to reading a question's
// screen — the picker's options for the keys that pick them — against
// the reading alone.
func BenchmarkScreenOptions(b *testing.B) {
	screen, err := os.ReadFile(filepath.Join("testdata", "screens", "question-picker.txt"))
	if err != nil {
		b.Fatal(err)
	}
	rules, km := New().PaneRules(), New().Keys()
	b.Run("classify", func(b *testing.B) {
		for b.Loop() {
			panes.Classify(&rules, string(screen))
		}
	})
	b.Run("classify+options", func(b *testing.B) {
		for b.Loop() {
			r := panes.Classify(&rules, string(screen))
			keyplan.Options(km, &r)
		}
	})
}
