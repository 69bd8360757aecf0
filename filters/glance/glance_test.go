package glance

import (
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/hostname"
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

func TestHostSummary(t *testing.T) {
	st := func(spec ...string) []event.Event {
		var out []event.Event
		for _, s := range spec {
			host, status, _ := strings.Cut(s, ":")
			e := event.Event{Agent: "claude", Host: host, Status: strings.TrimSuffix(status, "?")}
			if strings.HasSuffix(status, "?") {
				e.Stale = "lost touch with " + host
			}
			out = append(out, e)
		}
		return out
	}
	for _, tc := range []struct {
		states []event.Event
		hosts  bool
		want   string
	}{
		{st("laptop:waiting", ":done"), false, "⏳1 ✓1"},
		{st("laptop:waiting", "devbox:waiting", "devbox:done"), true, "laptop ⏳1 · devbox ⏳1 ✓1"},
		{st("gpu:working", "devbox:waiting"), true, "devbox ⏳1 · gpu ⚙1"},
		{st("laptop:idle", "devbox:waiting?", "devbox:done?", "devbox:gone?"), true, "devbox ?2"},
		{st("devbox:idle"), true, ""},
	} {
		if got := Hosts(tc.states, hostname.Named("laptop")); got != tc.hosts {
			t.Errorf("Hosts(%v) = %v", tc.states, got)
		}
		if got := HostSummary(tc.states, hostname.Named("laptop")); got != tc.want {
			t.Errorf("HostSummary(%v) = %q, want %q", tc.states, got, tc.want)
		}
	}
	e := event.Event{Agent: "claude", Host: "devbox"}
	if Who(&e, true) != "claude@devbox" || Who(&e, false) != "claude" {
		t.Error("Who")
	}
}

// One way to write a cost, in the table and the status line alike.
func TestUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.00", 0.42: "$0.42", 0.4219: "$0.42", 3.0412: "$3.04",
		0.0123: "$0.01", 0.004: "<$0.01", 12.5: "$12.50", 1234.567: "$1234.57"} {
		if got := USD(v); got != want {
			t.Errorf("USD(%v) = %q, want %q", v, got, want)
		}
	}
}
