//go:build bench

package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// Budgets of issue 14 (a year of history, a hundred agents).
const (
	ccusageRatio = 2.0      // ag-tail --once | ag-fold --snapshot at least this much faster than ccusage
	catRatio     = 2.5      // ag-tail --once at most this much slower than cat
	peakBudget   = 64 << 20 // peak resident memory of each process
)

// scaleCorpus is the ≥ 1 GB history: AG_BENCH_SCALE_MB (1024).
func scaleCorpus(t *testing.T) (string, int64) { return corpusOf(t, "AG_BENCH_SCALE_MB", 1024) }

// run is one timed run of a command line (a pipeline of commands).
type run struct {
	wall time.Duration
	cpu  time.Duration // user+sys of every process
	peak []int64       // each process's peak resident memory, bytes
	out  []byte
}

// timePipeline runs cmds as a pipeline (stdout to the next stdin), the
// last one's output kept.
func timePipeline(cmds ...*exec.Cmd) (run, error) {
	var r run
	var out bytes.Buffer
	for i := 0; i < len(cmds)-1; i++ {
		pr, pw, err := os.Pipe()
		if err != nil {
			return r, err
		}
		defer pr.Close()
		defer pw.Close()
		cmds[i].Stdout, cmds[i+1].Stdin = pw, pr
	}
	if last := cmds[len(cmds)-1]; last.Stdout == nil {
		last.Stdout = &out
	}
	start := time.Now()
	for _, c := range cmds {
		if c.Stderr == nil {
			c.Stderr = os.Stderr
		}
		if err := c.Start(); err != nil {
			return r, err
		}
	}
	for i := 0; i < len(cmds)-1; i++ { // only the children hold the pipes now
		cmds[i].Stdout.(*os.File).Close()
		cmds[i+1].Stdin.(*os.File).Close()
	}
	var firstErr error
	for _, c := range cmds {
		if err := c.Wait(); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", filepath.Base(c.Path), err)
		}
		r.cpu += c.ProcessState.UserTime() + c.ProcessState.SystemTime()
		if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.peak = append(r.peak, int64(ru.Maxrss)*1024) // KB on Linux
		}
	}
	r.wall, r.out = time.Since(start), out.Bytes()
	return r, firstErr
}

// medianRun is the run of median wall time.
func medianRun(rs []run) run {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b run) int { return int(a.wall - b.wall) })
	return s[len(s)/2]
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// TestScaleReplay: on the ≥ 1 GB history, side by side and interleaved
// (so they share the machine's mood), n runs each, medians:
//
//   - ag-tail --once | ag-fold --snapshot against ccusage session --json
//     --offline (20.0.24): the same per-session totals, at least 2× faster,
//     each process under 64 MiB at its peak;
//   - ag-tail --once alone against cat of the same files, page cache warm:
//     within 2.5×.
func TestScaleReplay(t *testing.T) {
	corpus, size := scaleCorpus(t)
	ccu := ccusageBin(t)
	files, _ := filepath.Glob(filepath.Join(corpus, "projects", "*", "*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(corpus, "projects", "*", "*", "subagents", "*.jsonl"))
	files = append(files, sub...)
	slices.Sort(files)
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "AG_DIR="+home+"/.ag", "CLAUDE_CONFIG_DIR="+corpus, "TMPDIR="+home)

	ag := func() (run, error) {
		tail := exec.Command(bin("ag-tail"), "--once")
		fold := exec.Command(bin("ag-fold"), "--snapshot", "--no-state", "--check", "0")
		tail.Env, fold.Env = env, env
		return timePipeline(tail, fold)
	}
	// Both write into a pipe that this process reads and drops.
	tailOnly := func() (run, error) {
		tail := exec.Command(bin("ag-tail"), "--once")
		tail.Env, tail.Stdout = env, io.Discard
		return timePipeline(tail)
	}
	cat := func() (run, error) {
		c := exec.Command("cat", files...)
		c.Stdout = io.Discard
		return timePipeline(c)
	}
	cc := func() (run, error) {
		c := exec.Command(ccu, "session", "--json", "--offline")
		c.Env = env
		return timePipeline(c)
	}
	// Warm the page cache (and ccusage's own start) once each.
	for _, f := range []func() (run, error){cat, tailOnly, cc} {
		if _, err := f(); err != nil {
			t.Fatal(err)
		}
	}
	n := 3
	var agRuns, ccRuns, tailRuns, catRuns []run
	for range n {
		for _, m := range []struct {
			f  func() (run, error)
			to *[]run
		}{{ag, &agRuns}, {cc, &ccRuns}, {tailOnly, &tailRuns}, {cat, &catRuns}} {
			r, err := m.f()
			if err != nil {
				t.Fatal(err)
			}
			*m.to = append(*m.to, r)
		}
	}
	a, c, tl, ct := medianRun(agRuns), medianRun(ccRuns), medianRun(tailRuns), medianRun(catRuns)

	agTot, _ := agTotals(t, a.out)
	ccTot := ccusageTotals(t, c.out)
	same := len(ccTot) > 0 && len(agTot) == len(ccTot)
	var sumAg, sumCc event.Tokens
	for s, v := range ccTot {
		sumCc = sumCc.Add(v)
		if agTot[s] != v {
			same = false
			t.Errorf("session %s: ag %+v, ccusage %+v", s, agTot[s], v)
		}
	}
	for _, v := range agTot {
		sumAg = sumAg.Add(v)
	}
	gb := float64(size) / 1e9
	ratio := c.wall.Seconds() / a.wall.Seconds()
	peak := slices.Max(a.peak)
	t.Logf("%.2f GB, %d files, %d cores, n=%d: ag-tail --once | ag-fold --snapshot %s (CPU %s, peaks %s / %s); ccusage %s (CPU %s, peak %s); ratio %.2f×",
		gb, len(files), runtime.NumCPU(), n, round(a.wall), round(a.cpu), mib(a.peak[0]), mib(a.peak[1]), round(c.wall), round(c.cpu), mib(c.peak[0]), ratio)
	t.Logf("ag-tail --once %s (CPU %s, peak %s); cat %s; ratio %.2f×", round(tl.wall), round(tl.cpu), mib(tl.peak[0]), round(ct.wall), tl.wall.Seconds()/ct.wall.Seconds())
	t.Logf("totals: %d sessions, ag %+v, ccusage %+v", len(ccTot), sumAg, sumCc)

	figure(fmt.Sprintf("per-session totals, ag vs ccusage 20.0.24, %.2f GB", gb), fmt.Sprintf("%d sessions, %s", len(ccTot), map[bool]string{true: "identical", false: "DIFFERENT"}[same]), "identical", same)
	figure(fmt.Sprintf("`ag-tail --once \\| ag-fold --snapshot`, %.2f GB (wall, median of %d)", gb, n), fmt.Sprintf("%s vs ccusage %s: **%.2f×** faster", round(a.wall), round(c.wall), ratio), "≥ 2×", ratio >= ccusageRatio)
	figure("  peak memory, ag-tail / ag-fold / ccusage", fmt.Sprintf("%s / %s / %s", mib(a.peak[0]), mib(a.peak[1]), mib(c.peak[0])), "< 64 MiB each", peak < peakBudget)
	figure("  CPU time, ag pipeline / ccusage", fmt.Sprintf("%s / %s", round(a.cpu), round(c.cpu)), "", true)
	catR := tl.wall.Seconds() / ct.wall.Seconds()
	figure(fmt.Sprintf("`ag-tail --once` vs `cat`, same files, page cache warm (%d cores)", runtime.NumCPU()), fmt.Sprintf("%s vs %s: **%.2f×**", round(tl.wall), round(ct.wall), catR), "≤ 2.5×", catR <= catRatio)
	if !same {
		t.Error("totals differ from ccusage's")
	}
	if ratio < ccusageRatio {
		t.Errorf("ag is %.2f× as fast as ccusage, budget %.1f×", ratio, ccusageRatio)
	}
	if catR > catRatio {
		t.Errorf("ag-tail --once takes %.2f× cat's time, budget %.1f×", catR, catRatio)
	}
	if peak >= peakBudget {
		t.Errorf("peak memory %s, budget %s", mib(peak), mib(peakBudget))
	}
	if !strings.Contains(string(a.out), `"kind":"state"`) {
		t.Error("ag-fold wrote no states")
	}
}
