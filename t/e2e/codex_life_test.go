//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/t/fakeapi/openai"
)

// TestCodexTurnFails: a request the API refuses (400: Codex does not
// retry it) fails the turn — Codex fires no Stop hook, its rollout ends
// the turn with task_complete and an error — and the next prompt works.
func TestCodexTurnFails(t *testing.T) {
	t.Parallel()
	bin := Install(t, Codex)
	CheckVersion(t, bin, Codex.Version)
	h := New(t)
	api := h.FakeOpenAI(openai.Options{})
	h.CodexConfig(bin, api)
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "codex")
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	tm := h.StartTmux()
	p := h.StartCodex(tm, "codex", bin)
	s := pl.Out.Session(codex.ID, "")

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
	t.Logf("failed: reason %q text %q; statuses %s", f.Reason, f.Text, strings.Join(s.History(), " → "))
}
