//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/claude"
	"github.com/agwatch/ag/providers/codex"
	"github.com/agwatch/ag/providers/copilot"
	"github.com/agwatch/ag/providers/gemini"
	"github.com/agwatch/ag/providers/omp"
	"github.com/agwatch/ag/providers/opencode"
)

// TestNarrowPane: an agent in a small pane — a split window, a laptop's
// terminal cut in two or three — asks to run a command. The pane rules were written from
// 160-column screens; at this size lines wrap and dialogs crowd the
// screen. The session waits with the tool, ag-detect --panes reads the
// dialog as a permission prompt, and ag-keys approve (which reads the
// pane before it types) runs the command. (Pi asks no permission.)
func TestNarrowPane(t *testing.T) {
	for _, tc := range []struct {
		agent string
		w, h  int
	}{
		{claude.ID, 60, 20}, {codex.ID, 60, 20}, {opencode.ID, 60, 20}, {omp.ID, 60, 20}, {copilot.ID, 60, 20}, {gemini.ID, 60, 20},
		// In 40 columns Codex's heading and footer wrap, and omp's footer;
		// Copilot's idle composer drops its footer there ("/ commands"),
		// which the harness waits for before it types.
		{codex.ID, 40, 16}, {omp.ID, 40, 16}, {claude.ID, 40, 16}, {opencode.ID, 40, 16}, {gemini.ID, 40, 16},
	} {
		size := fmt.Sprintf("%dx%d", tc.w, tc.h)
		t.Run(tc.agent+"-"+size, func(t *testing.T) {
			t.Parallel()
			w := paneOf(t, tc.agent, "narrow")
			h, tm, pl, p, prompt := w.h, w.tm, w.pl, w.p, w.prompt
			tm.Run("resize-window", "-t", p.ID, "-x", fmt.Sprint(tc.w), "-y", fmt.Sprint(tc.h))
			if got := strings.TrimSpace(tm.Run("display-message", "-p", "-t", p.ID, "#{pane_width}x#{pane_height}")); got != size {
				t.Fatalf("pane size %s", got)
			}
			time.Sleep(2 * time.Second) // the agent redraws
			s := pl.Out.Session(tc.agent, "")
			prompt("RUN: echo narrow > narrow.txt")
			wt := s.WaitFor(t, "waiting", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusWaiting })
			if wt.Attention != event.AttnPermission || !strings.Contains(wt.Text, "echo narrow") {
				t.Errorf("waiting state: attention %q tool %q text %q", wt.Attention, wt.Tool, wt.Text)
			}
			time.Sleep(time.Second) // the dialog drawn
			if r := panesOf(t, h, p); r != event.AttnPermission {
				t.Errorf("ag-detect --panes reads the %s dialog as %q:\n%s", size, r, p.Capture())
			}
			if out, code := h.runCode(30*time.Second, Bin(t, "ag-keys"), "approve", "--pane", p.ID, "-S", tm.Socket); code != 0 {
				t.Fatalf("ag-keys approve at %s: %d %s\n%s", size, code, out, p.Capture())
			}
			s.WaitFor(t, "done", 60*time.Second, func(e *event.Event) bool { return e.Status == event.StatusDone })
			if b, err := os.ReadFile(filepath.Join(h.Project, "narrow.txt")); err != nil || string(b) != "narrow\n" {
				t.Errorf("the approved command: %q, %v", b, err)
			}
		})
	}
}
