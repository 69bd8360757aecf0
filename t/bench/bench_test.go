//go:build bench

// Package bench measures whole programs the way a user runs them: built
// binaries, real files, wall-clock medians. `make bench` runs it; the figures
// it prints are the ones doc/figures.md quotes.
package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var binDir string

// figures are the rows of the table printed after the run: what was
// measured, the figure, its budget and whether it holds.
var figures struct {
	sync.Mutex
	rows [][4]string
}

// figure adds a row to the table; budget "" is a figure with no budget.
func figure(what, value, budget string, met bool) {
	verdict := ""
	if budget != "" {
		verdict = "met"
		if !met {
			verdict = "MISSED"
		}
	}
	figures.Lock()
	figures.rows = append(figures.rows, [4]string{what, value, budget, verdict})
	figures.Unlock()
}

// printFigures writes the table as Markdown, with the load it ran under.
func printFigures() {
	if len(figures.rows) == 0 {
		return
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\n## make bench figures (%s, load average %s)\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	fmt.Println("| what | figure | budget | |")
	fmt.Println("| --- | --- | --- | --- |")
	for _, r := range figures.rows {
		fmt.Printf("| %s | %s | %s | %s |\n", r[0], r[1], r[2], r[3])
	}
}

// TestMain measures the programs in $AG_BIN (make bench: bin/, as make
// builds them), else builds its own, without make's start-up settings.
func TestMain(m *testing.M) {
	if os.Getenv("AG_BENCH_SCREEN_AGENT") == "1" {
		spinAgent() // this binary, run in a pane as an agent (screens_test.go)
		return
	}
	if d := os.Getenv("AG_BIN"); d != "" {
		binDir = d
		code := m.Run()
		printFigures()
		os.Exit(code)
	}
	dir, err := os.MkdirTemp("", "ag-bench-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", dir+string(filepath.Separator), "github.com/agwatch/ag/cmd/...")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building ./cmd/...:", err)
		os.Exit(2)
	}
	binDir = dir
	code := m.Run()
	printFigures()
	os.RemoveAll(dir)
	os.Exit(code)
}

// bin is the path of a built program.
func bin(name string) string { return filepath.Join(binDir, name) }

// cacheDir is where npm packages and generated corpora are kept between runs.
func cacheDir(t testing.TB) string {
	d := os.Getenv("AG_E2E_CACHE")
	if d == "" {
		d = filepath.Join(os.TempDir(), "ag-cache")
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// Stats are the wall-clock figures of repeated runs.
type Stats struct {
	N                int
	Median, Min, Max time.Duration
}

func (s Stats) String() string {
	return fmt.Sprintf("median %s (min %s, max %s, n=%d)", round(s.Median), round(s.Min), round(s.Max), s.N)
}

func round(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

// measure runs f n times after warm warm-up runs and returns the figures.
func measure(t testing.TB, warm, n int, f func() error) Stats {
	for i := 0; i < warm; i++ {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return Stats{N: n, Median: ds[n/2], Min: ds[0], Max: ds[n-1]}
}
