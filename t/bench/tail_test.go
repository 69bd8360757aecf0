//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/t/internal/gencorpus"
)

// tailBudget is the least ag-tail --once must read on one core, in MB/s.
const tailBudget = 300

// claudeCorpus generates (once, cached) the synthetic transcript tree and
// returns its config dir and size in bytes: AG_BENCH_CORPUS_MB (300).
func claudeCorpus(t *testing.T) (string, int64) {
	return corpusOf(t, "AG_BENCH_CORPUS_MB", 300)
}

// corpusOf is the corpus of $env MB (def when unset).
func corpusOf(t *testing.T, env string, def int64) (string, int64) {
	mb := def
	if s := os.Getenv(env); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", env, err)
		}
		mb = n
	}
	dir := filepath.Join(cacheDir(t), fmt.Sprintf("claude-corpus-v2-seed1-%dmb", mb))
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err != nil {
		os.RemoveAll(dir)
		st, err := gencorpus.Generate(dir, mb<<20, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("generated %s: %d bytes, %d sessions, %d sub-agent files, %d projects", dir, st.Bytes, st.Sessions, st.Agents, st.Projects)
		if err := os.WriteFile(done, []byte(strconv.FormatInt(st.Bytes, 10)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(done)
	n, _ := strconv.ParseInt(string(b), 10, 64)
	return dir, n
}

// tailCmd is ag-tail over the corpus only (empty home and state dir).
func tailCmd(t *testing.T, corpus string, oneCore bool, args ...string) *exec.Cmd {
	home := t.TempDir()
	name, argv := bin("ag-tail"), args
	if oneCore {
		if ts, err := exec.LookPath("taskset"); err == nil {
			name, argv = ts, append([]string{"-c", "0", bin("ag-tail")}, args...)
		}
	}
	cmd := exec.Command(name, argv...)
	cmd.Env = append(os.Environ(), "HOME="+home, "AG_DIR="+home+"/.ag", "CLAUDE_CONFIG_DIR="+corpus)
	if oneCore {
		cmd.Env = append(cmd.Env, "GOMAXPROCS=1")
	}
	return cmd
}

func TestTailThroughput(t *testing.T) {
	corpus, size := claudeCorpus(t)
	var cpu []time.Duration
	st := measure(t, 1, 5, func() error {
		cmd := tailCmd(t, corpus, true, "--once")
		cmd.Stdout = io.Discard
		cmd.Stderr = os.Stderr
		err := cmd.Run()
		if cmd.ProcessState != nil {
			cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
		return err
	})
	cpu = cpu[1:] // the warm-up run
	slices.Sort(cpu)
	mbps := float64(size) / 1e6 / st.Median.Seconds()
	cpuMbps := float64(size) / 1e6 / cpu[len(cpu)/2].Seconds()
	t.Logf("ag-tail --once, %d bytes, one core (GOMAXPROCS=1, taskset -c 0): wall %s = %.0f MB/s; cpu (user+sys) median %s = %.0f MB/s",
		size, st, mbps, round(cpu[len(cpu)/2]), cpuMbps)
	// The budget holds for the time the process spends on its core: on a
	// shared machine the wall clock also counts other people's work.
	if cpuMbps < tailBudget {
		t.Errorf("ag-tail --once reads %.0f MB per cpu-second on one core, budget %d MB/s", cpuMbps, tailBudget)
	}
}

// agTotals reads per-session token totals: from ag-fold's state events if
// there are any, else by summing meter events.
func agTotals(t *testing.T, out []byte) (map[string]event.Tokens, string) {
	states, meters := map[string]event.Tokens{}, map[string]event.Tokens{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e event.Event
		if err := event.Decode(sc.Bytes(), &e); err != nil || e.Tokens == nil {
			continue
		}
		switch e.Kind {
		case event.State:
			states[e.Session] = *e.Tokens // the last state is the total
		case event.Meter:
			meters[e.Session] = meters[e.Session].Add(*e.Tokens)
		}
	}
	if len(states) > 0 {
		return states, "ag-tail --once | ag-fold --snapshot"
	}
	t.Log("no state events (ag-fold missing or not folding yet): summing ag-tail's meter events")
	return meters, "ag-tail --once (meters summed)"
}

func ccusageTotals(t *testing.T, out []byte) map[string]event.Tokens {
	var rep struct {
		Session []struct {
			Period                               string
			InputTokens, OutputTokens            int64
			CacheCreationTokens, CacheReadTokens int64
		}
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("ccusage output: %v", err)
	}
	m := map[string]event.Tokens{}
	for _, s := range rep.Session {
		m[s.Period] = event.Tokens{In: s.InputTokens, Out: s.OutputTokens, CacheRead: s.CacheReadTokens, CacheWrite: s.CacheCreationTokens}
	}
	return m
}

// ccusageBin installs ccusage 20.0.24 once (20.0.26, the newest, ships no
// native binary for linux-x64) and returns its bin.
func ccusageBin(t *testing.T) string {
	prefix := filepath.Join(cacheDir(t), "ccusage")
	b := filepath.Join(prefix, "node_modules", ".bin", "ccusage")
	if _, err := os.Stat(b); err == nil {
		return b
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm not found; cannot install ccusage")
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", prefix, "ccusage@20.0.24")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Skipf("npm install ccusage@20.0.24: %v", err)
	}
	return b
}
