package codex

import "testing"

func TestContextLeftPct(t *testing.T) {
	for _, tc := range []struct {
		used, window int64
		want         int
	}{
		{0, 258400, 100},
		{12000, 258400, 100},       // the baseline itself is free
		{18995, 258400, 97},        // 1 - 6995/246400 = 97.16
		{60405, 258400, 80},        // 1 - 48405/246400 = 80.36
		{135200, 258400, 50},       // exactly half the effective window
		{135199, 258400, 50},       // 50.0004 rounds down
		{258400, 258400, 0},        // full
		{300000, 258400, 0},        // over the window clamps at 0
		{5000, 12000, 0},           // window no larger than the baseline
		{5000, 0, 0},               // unknown window
		{-10, 258400, 100},         // nonsense usage never exceeds 100
		{73599, 135200, 50},        // 61599/123200 = 49.9996 left... used side
		{12001 + 1232, 135200, 99}, // 1 - 1233/123200 = 98.999 rounds to 99
	} {
		if got := ContextLeftPct(tc.used, tc.window); got != tc.want {
			t.Errorf("ContextLeftPct(%d, %d) = %d; want %d", tc.used, tc.window, got, tc.want)
		}
	}
}
