//go:build bench

package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/t/internal/gencorpus"
)

// statuslineBudget is the most the median `ag-hook statusline` may take,
// whole process; and it must be at least statuslineRatio times faster than
// each of the npm status lines people use today.
const (
	statuslineBudget = 5 * time.Millisecond
	statuslineRatio  = 10
)

// The peers, pinned (research/perf-anchors.md): ccusage 20.0.26 ships no
// native binary for linux-x64, so 20.0.24.
const (
	ccstatuslineVersion = "2.2.30"
	ccusageVersion      = "20.0.24"
)

// statuslinePeers installs both npm peers once into the cache and returns
// their bins.
func statuslinePeers(t *testing.T) (ccstatusline, ccusage string) {
	prefix := filepath.Join(cacheDir(t), "statusline-peers")
	ccstatusline = filepath.Join(prefix, "node_modules", ".bin", "ccstatusline")
	ccusage = filepath.Join(prefix, "node_modules", ".bin", "ccusage")
	have := func() bool {
		for _, b := range []string{ccstatusline, ccusage} {
			if _, err := os.Stat(b); err != nil {
				return false
			}
		}
		return true
	}
	if have() {
		return
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm not found: cannot install the peers")
	}
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", prefix,
		"ccstatusline@"+ccstatuslineVersion, "ccusage@"+ccusageVersion)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil || !have() {
		t.Fatalf("npm install ccstatusline@%s ccusage@%s: %v", ccstatuslineVersion, ccusageVersion, err)
	}
	return
}

// statuslineCorpus is a 200 MB synthetic transcript tree (gencorpus, seed
// 1: the size perf-anchors.md measured the peers on) plus one ~40 MB
// session, the live one the payload names: the lines of the corpus's
// biggest sessions, in order, under one session id. Returns the config
// dir, the session id and its transcript.
func statuslineCorpus(t *testing.T) (dir, session, transcript string) {
	dir = filepath.Join(cacheDir(t), "statusline-corpus-v1-200mb")
	session = "5a1f0c3e-9b2d-4e7f-8a6c-0d1e2f3a4b5c"
	transcript = filepath.Join(dir, "projects", "-home-dev-src-app", session+".jsonl")
	generated := filepath.Join(dir, ".complete")
	if _, err := os.Stat(generated); err != nil {
		os.RemoveAll(dir)
		if _, err := gencorpus.Generate(dir, 200<<20, 1); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(generated, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := filepath.Join(dir, ".transcript-v2")
	if _, err := os.Stat(done); err == nil {
		return
	}
	os.Remove(transcript)
	var files []string
	sizes := map[string]int64{}
	filepath.Walk(filepath.Join(dir, "projects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, "/subagents/") {
			files = append(files, p)
			sizes[p] = fi.Size()
		}
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return sizes[files[i]] > sizes[files[j]] })
	const want, most = 40 << 20, 42 << 20
	var b bytes.Buffer
	for _, f := range files {
		if b.Len() >= want {
			break
		}
		if int64(b.Len())+sizes[f] > most {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		old := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		b.Write(bytes.ReplaceAll(data, []byte(old), []byte(session)))
	}
	os.MkdirAll(filepath.Dir(transcript), 0o755)
	if err := os.WriteFile(transcript, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return
}

// statuslinePayload is Claude Code 2.1.19x's statusLine stdin for the live
// session (fields as in research field.md §1.1).
func statuslinePayload(session, transcript, cwd string, cost float64) []byte {
	return []byte(`{"hook_event_name":"Status","session_id":"` + session + `","prompt_id":"0b9e8d7c-6a5b-4c3d-9e2f-1a0b9c8d7e6f",` +
		`"transcript_path":"` + transcript + `","cwd":"` + cwd + `",` +
		`"model":{"id":"claude-opus-4-6","display_name":"Opus 4.6"},` +
		`"workspace":{"current_dir":"` + cwd + `","project_dir":"` + cwd + `","added_dirs":[]},"version":"2.1.197",` +
		`"output_style":{"name":"default"},` +
		`"cost":{"total_cost_usd":` + strconv.FormatFloat(cost, 'f', 4, 64) + `,"total_duration_ms":5806500,"total_api_duration_ms":2480880,"total_lines_added":1560,"total_lines_removed":230},` +
		`"context_window":{"total_input_tokens":172113,"total_output_tokens":10462,"context_window_size":200000,` +
		`"current_usage":{"input_tokens":8,"output_tokens":1200,"cache_creation_input_tokens":5000,"cache_read_input_tokens":167100},` +
		`"used_percentage":86,"remaining_percentage":14},"exceeds_200k_tokens":false,` +
		`"rate_limits":{"five_hour":{"used_percentage":23,"resets_at":1796032800},"seven_day":{"used_percentage":2,"resets_at":1796515200}},` +
		`"vim":{"mode":"NORMAL"}}`)
}

type slRow struct {
	name  string
	cmd   string
	stats Stats
	out   string
}

// TestStatuslineVsPeers times ag-hook statusline, ccstatusline and ccusage
// statusline on the same payload and transcript, whole process from
// outside, and prints the table doc/figures.md quotes.
func TestStatuslineVsPeers(t *testing.T) {
	ccsl, ccu := statuslinePeers(t)
	corpus, session, transcript := statuslineCorpus(t)
	fi, err := os.Stat(transcript)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	cwd := filepath.Join(work, "app")
	os.MkdirAll(cwd, 0o755)
	if git, err := exec.LookPath("git"); err == nil {
		exec.Command(git, "-C", cwd, "init", "-q").Run() // the peers show the branch
	}
	payload := statuslinePayload(session, transcript, cwd, 48.37)
	agDir := filepath.Join(work, "ag")
	base := append(os.Environ(), "AG_DIR="+agDir, "CLAUDE_CONFIG_DIR="+corpus)

	// one runs argv with the payload on stdin (fresh payload from next when
	// set) and keeps its stdout.
	one := func(env []string, next func() []byte, argv ...string) (func() error, *string) {
		out := new(string)
		return func() error {
			c := exec.Command(argv[0], argv[1:]...)
			c.Env, c.Dir = env, cwd
			in := payload
			if next != nil {
				in = next()
			}
			c.Stdin = bytes.NewReader(in)
			var b, e bytes.Buffer
			c.Stdout, c.Stderr = &b, &e
			if err := c.Run(); err != nil {
				return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, e.String())
			}
			if b.Len() == 0 {
				return fmt.Errorf("%s printed nothing\n%s", strings.Join(argv, " "), e.String())
			}
			*out = b.String()
			return nil
		}, out
	}
	home := func(name string) []string {
		h := filepath.Join(work, "home-"+name)
		os.MkdirAll(h, 0o755)
		return append(append([]string(nil), base...), "HOME="+h, "TMPDIR="+h)
	}
	// The programs run in rounds, each round every program in turn, so a
	// busy neighbour (this is a shared 2-core VM) weighs on all of them
	// alike; ag and the floor run several times a round.
	type prog struct {
		name, cmd string
		per, warm int
		f         func() error
		prime     func() error // run untimed before each timed run
		out       *string
		ds        []time.Duration
	}
	agEnv, ccslEnv, ccuEnv := home("ag"), home("ccsl"), home("ccu")
	cost := 48.37
	floorOut := "(prints nothing)"
	var progs []*prog
	addProg := func(name, cmd string, per, warm int, f func() error, out *string) *prog {
		p := &prog{name: name, cmd: cmd, per: per, warm: warm, f: f, out: out}
		progs = append(progs, p)
		return p
	}
	f, out := one(agEnv, nil, bin("ag-hook"), "statusline")
	ag := addProg("ag-hook statusline (same reading: no append)", "ag-hook statusline < payload", 5, 20, f, out)
	f, out = one(agEnv, func() []byte { cost += 0.01; return statuslinePayload(session, transcript, cwd, cost) }, bin("ag-hook"), "statusline")
	agNew := addProg("ag-hook statusline (new reading: meter appended)", "ag-hook statusline < payload (cost changes each run)", 5, 20, f, out)
	f, out = one(ccslEnv, nil, ccsl)
	sl := addProg("ccstatusline "+ccstatuslineVersion, "HOME=<fresh> ccstatusline < payload", 1, 3, f, out)
	f, out = one(ccuEnv, nil, ccu, "statusline", "--offline")
	cu := addProg("ccusage "+ccusageVersion+" statusline, cache hit (run twice, the second timed)", "ccusage statusline --offline < payload", 1, 3, f, out)
	cu.prime = f
	f, out = one(ccuEnv, nil, ccu, "statusline", "--offline", "--no-cache")
	cuNo := addProg("ccusage "+ccusageVersion+" statusline --no-cache (what a live session mostly pays: its transcript changes every message)", "ccusage statusline --offline --no-cache < payload", 1, 2, f, out)
	f, out = one(ccslEnv, nil, bin("ag-hook"), "statusline", "--then", ccsl)
	addProg("ag-hook statusline --then ccstatusline (ag wrapping the user's line)", "ag-hook statusline --then '<ccstatusline>' < payload", 1, 3, f, out)
	addProg("process floor (/bin/true)", "/bin/true < payload", 5, 20, func() error {
		c := exec.Command("/bin/true")
		c.Stdin = bytes.NewReader(payload)
		return c.Run()
	}, &floorOut)
	for _, p := range progs {
		for range p.warm {
			if err := p.f(); err != nil {
				t.Fatal(err)
			}
		}
	}
	rounds := 30
	if s := os.Getenv("AG_BENCH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	for range rounds {
		for _, p := range progs {
			for range p.per {
				if p.prime != nil {
					if err := p.prime(); err != nil {
						t.Fatal(err)
					}
				}
				start := time.Now()
				if err := p.f(); err != nil {
					t.Fatal(err)
				}
				p.ds = append(p.ds, time.Since(start))
			}
		}
	}
	stats := func(p *prog) Stats {
		ds := append([]time.Duration(nil), p.ds...)
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return Stats{N: len(ds), Median: ds[len(ds)/2], Min: ds[0], Max: ds[len(ds)-1]}
	}
	var rows []slRow
	for _, p := range progs {
		rows = append(rows, slRow{p.name, p.cmd, stats(p), strings.TrimSpace(*p.out)})
	}
	agSt, agNewSt := stats(ag), stats(agNew)

	var b strings.Builder
	fmt.Fprintf(&b, "transcript %d bytes (%s); corpus %s; payload %d bytes; %d rounds; load average %s\n", fi.Size(), transcript, corpus, len(payload), rounds, slLoad())
	fmt.Fprintf(&b, "| program | median | min | max | n | vs ag (new reading) |\n|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %.0f× |\n", r.name, round(r.stats.Median), round(r.stats.Min), round(r.stats.Max), r.stats.N,
			float64(r.stats.Median)/float64(agNewSt.Median))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "%s: %s\n", r.cmd, firstLine(r.out))
	}
	t.Log("\n" + b.String())
	if agSt.Median > statuslineBudget || agNewSt.Median > statuslineBudget {
		t.Errorf("ag-hook statusline median %s / %s, budget %s (load average: %s)", agSt.Median, agNewSt.Median, statuslineBudget, slLoad())
	}
	for _, peer := range []*prog{sl, cu, cuNo} {
		if m := stats(peer).Median; m < statuslineRatio*agNewSt.Median {
			t.Errorf("%s: median %s is less than %d× ag's %s", peer.name, m, statuslineRatio, agNewSt.Median)
		}
	}
}

// slLoad is /proc/loadavg's first three figures, "?" elsewhere.
func slLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
