//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/qwen"
	"github.com/agwatch/ag/t/fakeapi/chat"
)

// TestQwenStatusLine: `ag-hook install --agent qwen --statusline` makes
// the real Qwen Code's ui.statusLine run ag-hook: its payload reaches ag as
// the session's meter, and its footer shows ag's line, which counts the
// other agents waiting (a Claude session's wait, from its hook). Uninstall
// gives settings.json back as it was (but for Qwen's own "$version").
func TestQwenStatusLine(t *testing.T) {
	t.Parallel()
	bin := Install(t, Qwen)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	settings := filepath.Join(h.QwenConfig(api), "settings.json")
	before, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	h.Run(30*time.Second, Bin(t, "ag-hook"), "install", "--agent", "qwen", "--statusline")
	if st := h.Run(30*time.Second, Bin(t, "ag-hook"), "status", "--agent", "qwen"); !strings.Contains(st, "with the statusLine") {
		t.Errorf("ag-hook status --agent qwen: %q", st)
	}
	pl := h.StartPipeline([]string{"ag-tail", "--follow"}, []string{"ag-fold"})
	tm := h.StartTmux()
	p := tm.NewPane("qwen", h.Project, nil, bin)
	p.prompt = p.QwenType
	p.WaitText(90*time.Second, QwenIdle)

	t.Log("-- a turn: the status line's meter is the session's")
	s := pl.Out.Session(qwen.ID, "")
	p.Prompt("say hello")
	done := s.Expect(t, 40*time.Second, event.StatusWorking, event.StatusDone)[1]
	spoolMeter(t, h, 20*time.Second, func(e *event.Event) bool {
		return e.Kind == event.Meter && e.Src == event.SrcStatusline && e.Agent == qwen.ID && e.Session == done.Session &&
			e.Text == "fake-model" && e.Pane == p.ID && e.PID != 0
	})

	t.Log("-- another agent waits: Qwen's footer says so, in ag's line")
	payload := `{"hook_event_name":"PermissionRequest","session_id":"other-1","cwd":"` + h.Project +
		`","tool_name":"Bash","tool_input":{"command":"make deploy"}}`
	// In a pane of its own, whose shell lives on as the session's process.
	tm.NewPane("other", h.Project, nil, "/bin/sh", "-c", "printf '%s' \"$1\" | \"$2\" claude; exec sleep 600", "sh", payload, Bin(t, "ag-hook"))
	h.WaitState(20*time.Second, func(states []event.Event) bool {
		for _, st := range states {
			if st.Session == "other-1" && st.Status == event.StatusWaiting {
				return true
			}
		}
		return false
	}, "the other session waiting")
	p.Prompt("say hello again") // Qwen runs its status line on a change
	p.WaitText(40*time.Second, "fake-model · 1 waiting")

	p.Keys("C-c")
	p.Keys("C-c")
	h.Run(30*time.Second, Bin(t, "ag-hook"), "uninstall", "--agent", "qwen")
	// Qwen adds its own "$version" to the file while it runs; the rest is
	// as it was.
	after, err := os.ReadFile(settings)
	var was, is map[string]any
	if err != nil || json.Unmarshal(before, &was) != nil || json.Unmarshal(after, &is) != nil {
		t.Fatalf("settings.json after uninstall: %v\n%s", err, after)
	}
	delete(is, "$version")
	if !reflect.DeepEqual(was, is) || strings.Contains(string(after), "ag-hook") {
		t.Errorf("settings.json after uninstall:\n%s\nwant:\n%s", after, before)
	}
}

// spoolMeter waits for an event in the spool that match accepts.
func spoolMeter(t *testing.T, h *Harness, timeout time.Duration, match func(*event.Event) bool) {
	t.Helper()
	for end := time.Now().Add(timeout); ; time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(h.AGDir, "spool.ndjson"))
		for _, line := range strings.Split(string(b), "\n") {
			var e event.Event
			if event.Decode([]byte(line), &e) == nil && match(&e) {
				return
			}
		}
		if time.Now().After(end) {
			t.Fatalf("no such event in the spool within %s", timeout)
		}
	}
}
