package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/state"
)

// qwenPayload is ui.statusLine's stdin in Qwen Code 0.24.4's shape (as it
// ran here against the fake model: the model's window unknown, size 0),
// written for these tests; qwenSized the same with a window named.
const (
	qwenPayload = `{"session_id":"q-1","version":"0.24.4","model":{"display_name":"fake-model"},` +
		`"context_window":{"context_window_size":0,"used_percentage":0,"remaining_percentage":100,"current_usage":21373,` +
		`"total_input_tokens":21373,"total_output_tokens":13},"workspace":{"current_dir":"/home/u/app"},` +
		`"metrics":{"models":{"fake-model":{"api":{"total_requests":1},"tokens":{"prompt":21373,"cached":10686}}}}}`
	qwenSized = `{"session_id":"q-1","version":"0.24.4","model":{"display_name":"qwen3-coder-plus"},` +
		`"context_window":{"context_window_size":131072,"used_percentage":16.3,"remaining_percentage":83.7,"current_usage":21373},` +
		`"workspace":{"current_dir":"/home/u/app"}}`
)

// TestStatuslineQwen: `statusline --agent qwen` reads Qwen Code's payload:
// its meter is qwen's, a context only with the window known, the line
// counts the others waiting but this session.
func TestStatuslineQwen(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"AG_DIR": dir, "TMUX_PANE": "%7"}
	now := time.Date(2026, 12, 5, 4, 0, 0, 0, time.UTC)
	st := func(agent, session, status string) event.Event {
		e := event.New(event.State, now, agent, session)
		e.Src, e.Status = event.SrcFold, status
		return e
	}
	if err := state.Write(filepath.Join(dir, "state.json"), now, state.Self(0), []event.Event{
		st("qwen", "q-1", event.StatusWaiting), // this session
		st("claude", "q-1", event.StatusWaiting),
		st("codex", "c", event.StatusWaiting),
	}); err != nil {
		t.Fatal(err)
	}
	r := trySL(t, env, now, qwenPayload, "--agent", "qwen")
	if r.code != 0 || r.stdout != "fake-model · 2 waiting\n" || r.stderr != "" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	evs := spoolMeters(t, dir)
	if len(evs) != 1 || evs[0].Agent != "qwen" || evs[0].Session != "q-1" || evs[0].Context != nil || evs[0].Text != "fake-model" || evs[0].Pane != "%7" {
		t.Fatalf("meters: %+v", evs)
	}

	r = trySL(t, env, now.Add(time.Second), qwenSized, "--agent=qwen")
	if r.stdout != "qwen3-coder-plus · 84% context left · 2 waiting\n" {
		t.Errorf("sized: %q", r.stdout)
	}
	evs = spoolMeters(t, dir)
	if c := evs[len(evs)-1].Context; c == nil || c.Used != 21373 || c.Size != 131072 || *c.LeftPct != 84 {
		t.Errorf("sized meter: %s", event.Marshal(&evs[len(evs)-1]))
	}

	// An agent ag-hook does not know: said once, read as Claude's.
	r = trySL(t, env, now.Add(2*time.Second), qwenSized, "--agent", "nosuch")
	if r.code != 0 || !strings.Contains(r.stderr, `--agent "nosuch": no such agent`) || !strings.HasPrefix(r.stdout, "qwen3-coder-plus") {
		t.Errorf("unknown agent: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
