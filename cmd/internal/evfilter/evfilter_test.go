package evfilter

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
)

func states(statuses ...string) []event.Event {
	var out []event.Event
	for _, st := range statuses {
		e := event.New(event.State, event.Time{}.Time, "claude", st)
		e.Status, e.Text = st, "a > b & c"
		out = append(out, e)
	}
	return out
}

// TestFilter: --where keeps, --jq writes its results as jq does (no HTML
// escaping; -r strings bare), --slurp runs once over every event.
func TestFilter(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		o     cli.Filter
		slurp bool
		want  string
	}{
		{"where and jq", cli.Filter{Where: `.status == "waiting"`, JQ: `{s: .session}`}, false, "{\"s\":\"waiting\"}\n"},
		{"no HTML escaping", cli.Filter{Where: `ag::waiting`, JQ: `.text`}, false, "\"a > b & c\"\n"},
		{"raw", cli.Filter{JQ: `"\(.agent) \(.status)"`, Raw: true}, false, "claude working\nclaude waiting\n"},
		{"raw leaves other values JSON", cli.Filter{JQ: `[.status]`, Raw: true}, false, "[\"working\"]\n[\"waiting\"]\n"},
		{"slurp", cli.Filter{JQ: `ag::by_urgency | map(.status) | join(",")`, Raw: true}, true, "waiting,working\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			w := cli.NewWriter(&out)
			f, err := New(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Slurp(tc.slurp); err != nil {
				t.Fatal(err)
			}
			for _, e := range states("working", "waiting") {
				if err := f.Write(w, &e); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.Flush(w); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("output %q; want %q", out.String(), tc.want)
			}
		})
	}
	for _, o := range []cli.Filter{{Where: ".["}, {JQ: "nope"}, {Raw: true}} {
		if _, err := New(ctx, o); err == nil {
			t.Errorf("New(%+v) took it", o)
		}
	}
	if f, _ := New(ctx, cli.Filter{Where: "."}); f.Slurp(true) == nil {
		t.Errorf("--slurp without --jq taken")
	}
}

// TestExprError: an expression failing on one event is an *ExprError
// naming the option, counted, and the next event goes on; a run stopped
// by the program's context is the context's error, not the event's.
func TestExprError(t *testing.T) {
	var out bytes.Buffer
	w := cli.NewWriter(&out)
	f, _ := New(context.Background(), cli.Filter{JQ: `if .status == "working" then error("no") else .status end`})
	ev := states("working", "waiting")
	err := f.Write(w, &ev[0])
	if !IsExprError(err) || !strings.HasPrefix(err.Error(), "--jq: ") || f.Failed() != 1 {
		t.Errorf("failing event: %v (failed %d)", err, f.Failed())
	}
	if err := f.Write(w, &ev[1]); err != nil || out.String() != "\"waiting\"\n" {
		t.Errorf("next event: %v, %q", err, out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	f, _ = New(ctx, cli.Filter{Where: `def f: f; f`})
	cancel()
	if err := f.Write(w, &ev[0]); !errors.Is(err, context.Canceled) || IsExprError(err) || f.Failed() != 0 {
		t.Errorf("stopped: %v (failed %d)", err, f.Failed())
	}
}
