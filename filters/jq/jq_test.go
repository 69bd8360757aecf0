package jq

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/safetext/safetexttest"
)

func state(status, attention string) map[string]any {
	m := map[string]any{"v": 1.0, "kind": "state", "agent": "claude", "status": status, "t": "2026-11-30T12:00:00.000Z"}
	if attention != "" {
		m["attention"] = attention
	}
	return m
}

// TestModule: the ag module is there without an import, and its filters
// say what they are named.
func TestModule(t *testing.T) {
	t.Setenv("AG_TEST_VAR", "from the environment")
	ctx := context.Background()
	for _, tc := range []struct {
		expr string
		in   any
		want []any
	}{
		{`ag::waiting | .status`, state("waiting", ""), []any{"waiting"}},
		{`ag::waiting`, state("done", ""), nil},
		{`[ag::question, ag::plan, ag::permission] | length`, state("waiting", "question"), []any{1}},
		{`ag::permission | .status`, state("waiting", ""), []any{"waiting"}},
		{`ag::icon`, state("waiting", "plan"), []any{"📋"}},
		{`ag::urgency`, state("failed", ""), []any{1}},
		{`. + {stale: "x"} | [ag::stale, ag::live] | length`, state("working", ""), []any{1}},
		{`[.[] | ag::live] | length`, []any{state("working", ""), state("gone", "")}, []any{1}},
		{`ag::by_urgency | map(.status)`, []any{state("idle", ""), state("done", ""), state("waiting", ""), state("working", "")},
			[]any{[]any{"waiting", "working", "done", "idle"}}},
		{`ag::agent("claude") | ag::kind("state") | .agent`, state("idle", ""), []any{"claude"}},
		{`. + {tool: "Bash", text: "ls", cwd: "/w"} | ag::line`, state("waiting", ""), []any{"claude ⏳ Bash ls (/w)"}},
		{`ag::age > 0`, state("idle", ""), []any{true}},
		{`import "ag" as ag; ag::done | .status`, state("done", ""), []any{"done"}},
		{`$ENV.AG_TEST_VAR`, nil, []any{"from the environment"}},
		{`env.AG_TEST_VAR`, nil, []any{"from the environment"}},
	} {
		q, err := Compile(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		got, err := q.Run(ctx, tc.in)
		if err != nil || len(got) != len(tc.want) {
			t.Errorf("%s = %v, %v; want %v", tc.expr, got, err, tc.want)
			continue
		}
		for i := range got {
			if g, w := normal(got[i]), normal(tc.want[i]); g != w {
				t.Errorf("%s = %v; want %v", tc.expr, got, tc.want)
			}
		}
	}
	if _, err := Compile(`import "other" as o; .`); err == nil {
		t.Errorf("a module other than ag was found")
	}
}

func normal(v any) string {
	b, _ := Marshal(v, false)
	return string(b)
}

// TestBounds: a run that loops or grows gives up on its event, named as
// such; one asked to stop stops.
func TestBounds(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want error
	}{
		{`def f: f; f`, ErrTime},
		{`last(range(1e18))`, ErrTime},
		{`[range(1e9)] | length > 0`, ErrMemory},
		{`[limit(1e9; repeat("xxxxxxxxxxxxxxxx"))] | length`, ErrMemory},
	} {
		q, err := Compile(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		q.maxTime, q.maxHeap = 300*time.Millisecond, 32<<20
		if tc.want == ErrMemory {
			q.maxTime = time.Minute
		}
		start := time.Now()
		_, err = q.Run(context.Background(), nil)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v; want %v", tc.expr, err, tc.want)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: gave up only after %v", tc.expr, d)
		}
	}
	q, _ := Compile(`def f: f; f`)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := q.True(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("stopped run: %v", err)
	}
}

// BenchmarkWhere: one --where over one state, the bounds' watchdog
// included (it costs a timer, started and stopped, per run).
func BenchmarkWhere(b *testing.B) {
	q, err := Compile(`ag::waiting`)
	if err != nil {
		b.Fatal(err)
	}
	v := state("waiting", "permission")
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := q.True(context.Background(), v); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// FuzzLine: ag::line, meant for jq -r to a terminal, lets no escape,
// control or bidi character through, whatever the state's fields hold;
// ag::safe does the same for any value.
func FuzzLine(f *testing.F) {
	for _, s := range safetexttest.Hostile {
		f.Add(s)
	}
	line, err := Compile(`ag::line`)
	if err != nil {
		f.Fatal(err)
	}
	safe, err := Compile(`[.agent, .tool, {x: .text}] | map(ag::safe) | join("|")`)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in := state("waiting", "")
		for _, k := range []string{"agent", "tool", "text", "cwd"} {
			in[k] = s
		}
		for _, q := range []*Query{line, safe} {
			got, err := q.Run(context.Background(), in)
			if err != nil || len(got) != 1 {
				t.Fatalf("%q: %v %v", s, got, err)
			}
			out, _ := Marshal(got[0], true)
			if i, c := safetexttest.Find(string(out), false); i >= 0 {
				t.Fatalf("%s at byte %d of %q", c, i, out)
			}
		}
	})
}
