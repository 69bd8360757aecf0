//go:build bench

package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agwatch/ag/filters/event"
)

// geminiPayload is Gemini CLI 0.61.0's BeforeTool payload for a shell
// command, as the e2e recorded it.
const geminiPayload = `{"session_id":"bdc80954-5b8b-41bf-a134-8780c4ece6df","transcript_path":"/home/u/.gemini/tmp/app/chats/session-2026-12-01T11-21-bdc80954.jsonl","cwd":"/home/u/src/app","hook_event_name":"BeforeTool","timestamp":"2026-12-01T11:21:38.208Z","tool_name":"run_shell_command","tool_input":{"command":"go test ./... 2>&1 | tail -20","description":"Run the tests"}}`

// TestHookSpeedGemini times `ag-hook gemini` as Gemini runs it (a new
// process with the payload on stdin, started by a tty-less process under
// one named gemini — Gemini's relaunched node runs hooks through `bash
// -c`), beside the same floors as TestHookSpeed, interleaved. It checks
// ag-hook prints exactly {} every time and appends its event.
func TestHookSpeedGemini(t *testing.T) {
	dir := t.TempDir()
	goFloor := buildGoFloor(t, dir)
	claude, runner := buildHookRunner(t, dir)
	agent := filepath.Join(dir, "gemini")
	b, _ := os.ReadFile(claude)
	if err := os.WriteFile(agent, b, 0o755); err != nil {
		t.Fatal(err)
	}
	installed := writtenCopy(t, bin("ag-hook"), filepath.Join(dir, "installed", "ag-hook"), false)
	const warm, n = 20, 300
	spec := hookRunSpec{
		N: warm + n, Payload: geminiPayload,
		Env:  []string{"AG_DIR=" + filepath.Join(dir, "ag"), "TMUX_PANE=%1", "HOME=" + dir, "PATH=" + os.Getenv("PATH")},
		Runs: [][]string{{installed, "gemini"}, {goFloor, filepath.Join(dir, "floor.ndjson")}, {"/bin/true"}},
	}
	res, stats := runHooks(t, agent, runner, spec, warm)
	if want := bytes.Repeat([]byte("{}"), warm+n); res.Stdout != string(want) {
		t.Fatalf("ag-hook gemini printed %q (%d bytes), want {} per run", res.Stdout[:min(len(res.Stdout), 40)], len(res.Stdout))
	}
	sp, err := os.ReadFile(filepath.Join(dir, "ag", "spool.ndjson"))
	if err != nil || bytes.Count(sp, []byte("\n")) != warm+n {
		t.Fatalf("spool has %d lines after %d runs (%v)", bytes.Count(sp, []byte("\n")), warm+n, err)
	}
	var e event.Event
	if event.Decode(sp[:bytes.IndexByte(sp, '\n')], &e) != nil || e.PID != res.Agent || e.Agent != "gemini" || e.Kind != event.ToolStart {
		t.Fatalf("the hook found pid %d, the agent is %d: %s", e.PID, res.Agent, sp[:bytes.IndexByte(sp, '\n')])
	}
	t.Logf("ag-hook gemini, BeforeTool payload (%d bytes) to the spool, {} on stdout, as make installs it: %s", len(geminiPayload), stats[0])
	t.Logf("floor, Go program reading stdin and appending a line: %s", stats[1])
	t.Logf("floor, /bin/true: %s (load average %s)", stats[2], loadavg())
	if stats[0].Median > hookBudget {
		t.Errorf("ag-hook gemini median %s, budget %s", round(stats[0].Median), hookBudget)
	}
}
