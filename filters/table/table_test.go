package table

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/safetext/safetexttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func readStates(t *testing.T, name string) []event.Event {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []event.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e event.Event
		if err := event.Decode(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, e)
	}
	return out
}

// The golden files are what a terminal shows (colour ones hold the escape
// codes as they are).
func TestGolden(t *testing.T) {
	tests := []struct {
		name, states string
		width        int
		color        bool
	}{
		{"many_unlimited", "many.ndjson", 0, false},
		{"many_160", "many.ndjson", 160, false},
		{"many_120", "many.ndjson", 120, false},
		{"many_100", "many.ndjson", 100, false},
		{"many_80", "many.ndjson", 80, false},
		{"many_60", "many.ndjson", 60, false},
		{"many_40", "many.ndjson", 40, false},
		{"many_24", "many.ndjson", 24, false},
		{"many_100_color", "many.ndjson", 100, true},
		{"hosts_120", "hosts.ndjson", 120, false},
		{"hosts_70", "hosts.ndjson", 70, false},
		// No ag-fold keeps the state file: the rows say "?", the footer why.
		{"stale_100", "stale.ndjson", 100, false},
		{"stale_100_color", "stale.ndjson", 100, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Render(readStates(t, tc.states), Options{Width: tc.width, Color: tc.color, Now: now})
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			for i, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if tc.width > 0 && !tc.color && Width(l) > tc.width {
					t.Errorf("line %d is %d columns wide, more than %d: %q", i+1, Width(l), tc.width, l)
				}
				if strings.HasSuffix(l, " ") {
					t.Errorf("line %d ends in a blank: %q", i+1, l)
				}
			}
		})
	}
}

// Every width from very narrow to wide: never wider than asked, every
// session a line, in the same order.
func TestEveryWidth(t *testing.T) {
	states := readStates(t, "many.ndjson")
	first := Render(states, Options{Now: now})
	order := agents(first)
	for w := 1; w <= 200; w++ {
		for _, color := range []bool{false, true} {
			got := Render(states, Options{Width: w, Color: color, Now: now})
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) != len(states)+1 {
				t.Fatalf("width %d: %d lines for %d states", w, len(lines), len(states))
			}
			for i, l := range lines {
				if Width(stripANSI(l)) > w {
					t.Fatalf("width %d color %v: line %d is %d wide: %q", w, color, i+1, Width(stripANSI(l)), l)
				}
			}
			if w >= 30 && agents(stripANSI(got)) != order {
				t.Fatalf("width %d: rows in another order:\n%s", w, got)
			}
		}
	}
}

func agents(table string) string {
	var b strings.Builder
	for _, l := range strings.Split(table, "\n")[1:] {
		if f := strings.Fields(l); len(f) > 0 {
			b.WriteString(f[0] + " ")
		}
	}
	return b.String()
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestOrder(t *testing.T) {
	at := func(min int) *event.Time { return &event.Time{Time: now.Add(-time.Duration(min) * time.Minute)} }
	states := []event.Event{
		{Agent: "a-done", Status: event.StatusDone, Since: at(1)},
		{Agent: "b-wait-new", Status: event.StatusWaiting, Since: at(1)},
		{Agent: "c-idle", Status: event.StatusIdle, Since: at(1)},
		{Agent: "d-wait-old", Status: event.StatusWaiting, Since: at(9)},
		{Agent: "e-gone", Status: event.StatusGone, Since: at(1)},
		{Agent: "f-work", Status: event.StatusWorking, Since: at(1)},
		{Agent: "g-fail", Status: event.StatusFailed, Since: at(1)},
	}
	got := agents(Render(states, Options{Now: now}))
	if want := "d-wait-old b-wait-new g-fail f-work a-done c-idle e-gone "; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if Render(nil, Options{}) != "" {
		t.Error("no states: want no table")
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		w    int
		want string
	}{
		{"make test", 20, "make test"},
		{"make test", 9, "make test"},
		{"make test", 8, "make te…"},
		{"make test", 6, "make…"}, // no blank before the mark
		{"make test", 1, "…"},
		{"make test", 0, ""},
		{"中文项目", 5, "中文…"}, // a wide character never straddles the edge
		{"中文项目", 4, "中…"},
		{"⏳ waiting", 3, "⏳…"},
		{"e\u0301e\u0301e\u0301", 2, "e\u0301…"}, // combining marks stay with their letter
	}
	for _, tc := range tests {
		if got := Cut(tc.s, tc.w); got != tc.want || Width(got) > tc.w {
			t.Errorf("Cut(%q, %d) = %q (%d wide), want %q", tc.s, tc.w, got, Width(got), tc.want)
		}
	}
}

func TestWidth(t *testing.T) {
	for s, want := range map[string]int{"abc": 3, "⏳": 2, "❓": 2, "📋": 2, "⚙": 1, "✓": 1, "✗": 1, "中文": 4, "e\u0301": 1, "": 0} {
		if got := Width(s); got != want {
			t.Errorf("Width(%q) = %d, want %d", s, got, want)
		}
	}
}

// Cut never gives more columns than asked, keeps whole characters, and
// leaves text that fits alone; Render never writes a line wider than asked.
func FuzzCut(f *testing.F) {
	for _, s := range []string{"make test", "中文项目", "⏳ waiting", "e\u0301e\u0301", "a\x00b", "\xff\xfe"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		w %= 300
		got := Cut(s, w)
		if Width(got) > max(w, 0) {
			t.Fatalf("Cut(%q, %d) = %q, %d wide", s, w, got, Width(got))
		}
		if Width(s) <= w {
			if got != s {
				t.Fatalf("Cut(%q, %d) = %q: it fitted", s, w, got)
			}
		} else if norm := string([]rune(s)); !strings.HasPrefix(norm, strings.TrimSuffix(got, "…")) { // cut: a byte that is not UTF-8 shows as U+FFFD
			t.Fatalf("Cut(%q, %d) = %q is not a prefix and a mark", s, w, got)
		}
		e := event.Event{Agent: "claude", Status: event.StatusWaiting, Tool: "Bash", Text: s, Cwd: "/x/" + s}
		for _, l := range strings.Split(strings.TrimSuffix(Render([]event.Event{e}, Options{Width: max(w, 1)}), "\n"), "\n") {
			if Width(l) > max(w, 1) {
				t.Fatalf("width %d: line %q is %d wide", w, l, Width(l))
			}
		}
	})
}

// FuzzHostile: whatever an agent, its model or another host wrote into a
// state, no column of the table — host, agent, project, pane, what — lets
// an escape, control or bidi character through; a cost is a few
// characters, however large.
func FuzzHostile(f *testing.F) {
	for _, s := range safetexttest.Hostile {
		f.Add(s, 1e308)
	}
	f.Fuzz(func(t *testing.T, s string, cost float64) {
		states := []event.Event{{Agent: s, Session: s, Host: s, Cwd: "/src/" + s, Branch: s, Pane: s, Tool: s,
			Text: s, Prompt: s, Reason: s, Status: event.StatusWaiting, CostUSD: &cost},
			{Agent: "claude", Host: "other", Status: event.StatusFailed, Reason: s, Text: s},
			{Agent: "codex", Status: event.StatusWorking, Prompt: s}}
		for _, color := range []bool{false, true} {
			got := Render(states, Options{Color: color, Now: now})
			if color {
				got = stripANSI(got)
			}
			if i, c := safetexttest.Find(got, true); i >= 0 {
				t.Fatalf("color %v: %s at byte %d of %q", color, c, i, got)
			}
			if n := strings.Count(got, "\n"); n != len(states)+1 {
				t.Fatalf("%d lines for %d states: %q", n, len(states), got)
			}
		}
		if m := regexp.MustCompile(`\$[0-9]{12,}`).FindString(Render(states[:1], Options{})); m != "" {
			t.Fatalf("cost %v shown as %s", cost, m)
		}
	})
}
