//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// TestCodexLifecycle: a request the API refuses (400: Codex does not retry
// it) fails the turn — Codex fires no Stop hook, its rollout ends the turn
// with task_complete and an error — and the next prompt works; /compact
// typed at the prompt is working while it runs and ends at the prompt.
func TestCodexLifecycle(t *testing.T) {
	t.Parallel()
	lw, _ := newCodexWorld(t, "codex", openai.Options{})
	p, s := lw.p, lw.s

	p.Type("say hello")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: say hello")

	p.Type("FAIL: the fake refuses")
	f := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusFailed)[1]
	if f.Reason == "" || !strings.Contains(f.Text, "FAKE-FAIL: the fake refuses") {
		t.Errorf("failed state: reason %q text %q, want a kind and the error Codex showed", f.Reason, f.Text)
	}
	p.WaitText(10*time.Second, "FAKE-FAIL: the fake refuses")

	p.Type("say again")
	s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusDone)
	p.WaitText(10*time.Second, "FAKE-REPLY: say again")

	// Codex runs /compact as a task of its own (no prompt); its hooks say
	// PreCompact/PostCompact (manual), its rollout ends the task.
	p.Type("/compact")
	c := s.Expect(t, 30*time.Second, event.StatusWorking, event.StatusIdle)
	p.WaitText(10*time.Second, "Context compacted")
	// The task's end in the rollout comes after the hook's: still idle.
	time.Sleep(2 * time.Second)
	lw.h.WaitState(10*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == s.ID {
				return st.Status == event.StatusIdle
			}
		}
		return false
	}, "the session idle after /compact")
	t.Logf("failed: reason %q text %q; /compact: working (tool %q) → idle; statuses %s", f.Reason, f.Text, c[0].Tool, strings.Join(s.History(), " → "))
}

// TestCodexApprovedRuns: a command approved at Codex's prompt is working as
// soon as ag-fold finds it running under Codex's process (login pipeline
// alone), not when its output reaches the rollout at the end.
func TestCodexApprovedRuns(t *testing.T) {
	t.Parallel()
	lw, _ := newCodexWorld(t, "runs", openai.Options{})
	approvedLong(t, lw.p, lw.s, lw.h.Project, "Bash", "Enter", func() { lw.p.WaitText(10*time.Second, CodexPermission) })
}
