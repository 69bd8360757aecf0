package glance

import (
	"testing"

	"github.com/agwatch/ag/filters/event"
)

func TestIcon(t *testing.T) {
	for _, tc := range []struct{ status, attn, want string }{
		{"waiting", "permission", "⏳"},
		{"waiting", "", "⏳"},
		{"waiting", "question", "❓"},
		{"waiting", "plan", "📋"},
		{"working", "", "⚙"},
		{"done", "", "✓"},
		{"failed", "", "✗"},
		{"idle", "", ""},
		{"gone", "", ""},
	} {
		if got := Icon(tc.status, tc.attn); got != tc.want {
			t.Errorf("Icon(%q, %q) = %q, want %q", tc.status, tc.attn, got, tc.want)
		}
	}
}

func TestRankOrder(t *testing.T) {
	order := []string{"waiting", "failed", "working", "done", "idle", "gone"}
	for i := 1; i < len(order); i++ {
		if Rank(order[i-1]) <= Rank(order[i]) {
			t.Errorf("Rank(%s)=%d should outrank Rank(%s)=%d", order[i-1], Rank(order[i-1]), order[i], Rank(order[i]))
		}
	}
}

func TestSummary(t *testing.T) {
	st := func(ss ...string) []event.Event {
		var out []event.Event
		for _, s := range ss {
			out = append(out, event.Event{Status: s})
		}
		return out
	}
	for _, tc := range []struct {
		states []event.Event
		want   string
		total  int
	}{
		{nil, "", 0},
		{st("idle", "gone"), "", 1},
		{st("waiting", "done", "waiting"), "⏳2 ✓1", 3},
		{st("done", "working", "failed", "waiting", "idle"), "⏳1 ✗1 ⚙1 ✓1", 5},
	} {
		c := Count(tc.states)
		if got := c.Summary(); got != tc.want {
			t.Errorf("Summary(%v) = %q, want %q", tc.states, got, tc.want)
		}
		if c.Total != tc.total {
			t.Errorf("Total = %d, want %d", c.Total, tc.total)
		}
	}
}
