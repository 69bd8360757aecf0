package termwidth

import "testing"

func TestOf(t *testing.T) {
	for s, want := range map[string]int{"abc": 3, "claude ⏳ Bash": 14, "📋": 2, "⚙ ✓ ✗ —": 7, "日本": 4} {
		if got := Of(s); got != want {
			t.Errorf("Of(%q) = %d, want %d", s, got, want)
		}
	}
}
