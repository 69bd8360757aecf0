package claudehook

import "testing"

func TestContextWindow(t *testing.T) {
	for _, c := range []struct {
		model string
		used  int64
		want  int64
	}{
		{"claude-opus-4-6", 50_000, 200_000},
		{"claude-opus-4-6[1m]", 50_000, 1_000_000},
		{"claude-sonnet-4-5[1M]", 0, 1_000_000},
		{"claude-opus-4-6", 200_000, 200_000},
		{"claude-opus-4-6", 200_001, 1_000_000}, // more than fits: must be the large window
		{"", 10, 200_000},
	} {
		if got := ContextWindow(c.model, c.used); got != c.want {
			t.Errorf("ContextWindow(%q, %d) = %d, want %d", c.model, c.used, got, c.want)
		}
	}
}

func TestLeftPct(t *testing.T) {
	for _, c := range []struct {
		used, size int64
		want       int
	}{
		{0, 200_000, 100},
		{1_000, 200_000, 99},   // 0.5 % used rounds to 1
		{999, 200_000, 100},    // 0.4995 % rounds to 0
		{101_000, 200_000, 49}, // 50.5 → 51 used
		{200_000, 200_000, 0},
		{300_000, 200_000, 0}, // clamped
		{250_000, 1_000_000, 75},
		{5, 0, 0},
	} {
		if got := LeftPct(c.used, c.size); got != c.want {
			t.Errorf("LeftPct(%d, %d) = %d, want %d", c.used, c.size, got, c.want)
		}
	}
}
