package codex

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// corpus is ../shared/corpus/codex beside the repository, or the test is
// skipped: the corpus is real agent output, never part of the repository.
func corpus(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			c := filepath.Join(d, "..", "shared", "corpus", "codex")
			if _, err := os.Stat(c); err != nil {
				t.Skip("no ../shared/corpus")
			}
			return c
		}
	}
	t.Skip("no module root")
	return ""
}

func corpusEvents(t *testing.T, path string) []event.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewRollout(path)
	var out []event.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if err := r.Parse(sc.Bytes(), func(e *event.Event) { out = append(out, *e) }); err != nil {
			t.Errorf("%s:%d: %v", filepath.Base(path), n, err)
		}
	}
	return r.Flush(out)
}

func seq(evs []event.Event) string {
	var s []string
	for _, e := range evs {
		if e.Kind != event.Meter {
			s = append(s, e.Kind)
		}
	}
	return strings.Join(s, " ")
}

func TestCorpusRollouts(t *testing.T) {
	dir := filepath.Join(corpus(t), "rollout")
	t.Run("0.147 permission run", func(t *testing.T) {
		evs := corpusEvents(t, filepath.Join(dir, "codex-0.147.0-permission-run.jsonl"))
		if got, want := seq(evs), "turn.start tool.start tool.end tool.start tool.end turn.end"; got != want {
			t.Errorf("kinds %q; want %q", got, want)
		}
		if evs[0].Text != "Delete the file NOTE.txt by running a shell command." || evs[0].Run != "01a0059b-d8c1-7ad0-950c-22a799e971ba" {
			t.Errorf("turn.start = %s", event.Marshal(&evs[0]))
		}
		var last *event.Event
		for i := range evs {
			if evs[i].Context != nil {
				last = &evs[i]
			}
			if evs[i].Session != "01a0059b-cb9d-7a92-8821-85ebb7604464" || evs[i].Branch != "main" {
				t.Fatalf("session/branch: %s", event.Marshal(&evs[i]))
			}
		}
		// Last token_count: last_token_usage.total_tokens 18995 of 258400.
		if last == nil || last.Context.Used != 18995 || *last.Context.LeftPct != 97 || last.Model != "gpt-5.6-sol" {
			t.Errorf("last meter = %s", event.Marshal(last))
		}
	})
	t.Run("0.60.1 turn aborted", func(t *testing.T) {
		evs := corpusEvents(t, filepath.Join(dir, "codex-0.60.1-turn-aborted.jsonl"))
		s := seq(evs)
		if !strings.Contains(s, "interrupt") || !strings.HasPrefix(s, "turn.start tool.start tool.end turn.end turn.start") {
			t.Errorf("kinds %q", s)
		}
	})
	t.Run("0.60.1 session start and limits", func(t *testing.T) {
		evs := corpusEvents(t, filepath.Join(dir, "codex-0.60.1-session-start.jsonl"))
		var limits []event.Limit
		for _, e := range evs {
			if len(e.Limits) > 0 && limits == nil {
				limits = e.Limits // the first: info null, limits only
			}
		}
		if len(limits) != 2 || limits[0].Window != "5h" || limits[1].Window != "7d" || limits[1].UsedPct != 3 || limits[0].ResetsAt.Unix() != 1763862524 {
			t.Errorf("limits %+v", limits)
		}
	})
	t.Run("every file parses", func(t *testing.T) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, f := range files {
			corpusEvents(t, f)
		}
	})
}

func TestCorpusHooks(t *testing.T) {
	path := filepath.Join(corpus(t), "hooks", "codex-0.147.0-hooks-permission-run.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hc := provider.HookContext{Now: time.Date(2026, 11, 30, 2, 16, 42, 0, time.UTC), PID: 4242, Pane: "%7"}
	var kinds []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		evs, err := New().MapHook([]byte(l), hc)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			kinds = append(kinds, e.Kind)
			if e.Kind == event.Wait && (e.Attention != event.AttnPermission || e.Text != "rm -- NOTE.txt && test ! -e NOTE.txt" || e.Run == "") {
				t.Errorf("wait = %s", event.Marshal(&e))
			}
		}
	}
	want := "session.start turn.start tool.start wait tool.end turn.end session.end"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("kinds %q; want %q", got, want)
	}
}
