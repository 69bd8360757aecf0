//go:build bench

package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPluginEventCost: what one reported event costs the agent, on the
// plugin's side — the OpenCode plugin under Bun (OpenCode's runtime; the
// bun npm installs with omp), the extension under Node (Pi's) — run by
// t/js/bench.mjs against the files `ag-hook install` writes, with the real
// ag-hook: an event ag does not read, an event that starts ag-hook (the
// first of a batch: a detached spawn), and each event of a burst of 500
// (queued while one ag-hook runs, sent in the next).
func TestPluginEventCost(t *testing.T) {
	home, agDir := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HOME="+home, "AG_DIR="+agDir, "XDG_CONFIG_HOME=", "PI_CODING_AGENT_DIR=", "AG_DEBUG=")
	// The agents' config folders, as their first run leaves them: install
	// refuses an agent that does not seem to be there.
	for _, d := range []string{".config/opencode", ".pi/agent"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []string{"opencode", "pi"} {
		c := exec.Command(bin("ag-hook"), "install", "--agent", a)
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("install %s: %v\n%s", a, err, out)
		}
	}
	files := map[string]string{
		"opencode": filepath.Join(home, ".config/opencode/plugins/ag.js"),
		"pi":       filepath.Join(home, ".pi/agent/extensions/ag.js"),
	}
	runtimes := map[string]string{}
	if p, err := exec.LookPath("node"); err == nil {
		runtimes["node"] = p
	}
	if b := filepath.Join(cacheDir(t), "omp-18.2.3", "node_modules", ".bin", "bun"); fileExists(b) {
		runtimes["bun"] = b
	} else if p, err := exec.LookPath("bun"); err == nil {
		runtimes["bun"] = p
	}
	script, _ := filepath.Abs("../js/bench.mjs")
	for _, run := range []struct{ runtime, kind string }{{"bun", "opencode"}, {"node", "pi"}, {"node", "opencode"}} {
		rt, ok := runtimes[run.runtime]
		if !ok {
			t.Logf("%s: no %s here", run.kind, run.runtime)
			continue
		}
		c := exec.Command(rt, script, run.kind, files[run.kind], filepath.Join(agDir, "spool.ndjson"))
		c.Env = env
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", run.runtime, run.kind, err, out)
		}
		var r struct {
			Runtime  string  `json:"runtime"`
			Ignored  float64 `json:"ignored_us"`
			Spawning float64 `json:"spawning_us"`
			Burst    float64 `json:"burst_us"`
			Written  int     `json:"written"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s %s: %v: %q", run.runtime, run.kind, err, out)
		}
		if r.Written != 500 {
			t.Errorf("%s %s: the burst wrote %d lines, want 500", run.runtime, run.kind, r.Written)
		}
		t.Logf("%s plugin under %s: an event it does not read %.2f µs; an event that starts ag-hook %.0f µs (median of 40); in a burst of 500 %.1f µs an event (load average %s)",
			run.kind, r.Runtime, r.Ignored, r.Spawning, r.Burst, loadavg())
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestPluginHookSpeed times `ag-hook opencode` and `ag-hook pi` as the
// plugins run them — a new process, one line on stdin, appending to a real
// spool — beside the Go floor (a program that reads stdin and appends a
// line) and /bin/true, interleaved as TestHookSpeed does.
func TestPluginHookSpeed(t *testing.T) {
	dir := t.TempDir()
	goFloor := buildGoFloor(t, dir)
	agent, runner := buildHookRunner(t, dir)
	installed := writtenCopy(t, bin("ag-hook"), filepath.Join(dir, "installed", "ag-hook"), false)
	for _, tc := range []struct{ agent, payload string }{
		{"opencode", `{"t":1796124758000,"pid":1,"event":{"type":"permission.asked","properties":{"id":"per_1","sessionID":"ses_dcea1d1e6ffeOtOEqrEkWKDP3u","permission":"bash","patterns":["echo marker > marker.txt"],"metadata":{"command":"echo marker > marker.txt"},"always":["echo *"],"tool":{"messageID":"msg_2","callID":"call_a790"}}}}` + "\n"},
		{"pi", `{"t":1796124758000,"pid":1,"type":"tool_execution_start","session":"01a23178-aeae-70ce-8b34-0c6c2e2ca9e9","file":"/h/.pi/agent/sessions/--w--/x.jsonl","cwd":"/w","toolCallId":"call_0fde","toolName":"bash","text":"echo marker > marker.txt"}` + "\n"},
	} {
		const warm, n = 20, 200
		spec := hookRunSpec{
			N: warm + n, Payload: tc.payload,
			Env:  []string{"AG_DIR=" + filepath.Join(dir, tc.agent), "TMUX_PANE=%1", "HOME=" + dir, "PATH=" + os.Getenv("PATH")},
			Runs: [][]string{{installed, tc.agent}, {goFloor, filepath.Join(dir, tc.agent+"-floor.ndjson")}, {"/bin/true"}},
		}
		_, stats := runHooks(t, agent, runner, spec, warm)
		b, _ := os.ReadFile(filepath.Join(dir, tc.agent, "spool.ndjson"))
		if got := countLines(b); got != warm+n {
			t.Errorf("%s: spool has %d lines after %d runs", tc.agent, got, warm+n)
		}
		t.Logf("ag-hook %s, one plugin line to the spool: %s; Go floor %s; /bin/true %s (load average %s)", tc.agent, stats[0], stats[1], stats[2], loadavg())
	}
}

func countLines(b []byte) int { return bytes.Count(b, []byte("\n")) }
