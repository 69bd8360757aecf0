// Package testsum reads go test -json and writes what make test shows a
// developer: a line per package, the output of every test that failed,
// the skipped tests with why, and one closing line with the counts.
package testsum

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
)

// event is one line of go test -json (test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// Summary is what a run came to.
type Summary struct {
	Passed, Failed, Skipped int
	// Skips are "pkg.Test: why", in the order they came.
	Skips []string
	// BadPackages failed without a test failing: a build error, a panic
	// in TestMain, a timeout.
	BadPackages int
	// Slowest are the packages that took longest, with their times;
	// SlowestTests the top-level tests.
	Slowest, SlowestTests []string
}

// OK reports whether nothing failed.
func (s *Summary) OK() bool { return s.Failed == 0 && s.BadPackages == 0 }

// Line is the closing line: "make test: 812 passed, 0 failed, 3 skipped in
// 4m10s".
func (s *Summary) Line(wall time.Duration) string {
	verdict := "ok"
	if !s.OK() {
		verdict = "FAILED"
	}
	line := fmt.Sprintf("make test: %s — %d passed, %d failed, %d skipped", verdict, s.Passed, s.Failed, s.Skipped)
	if s.BadPackages > 0 {
		line += fmt.Sprintf(", %d package(s) failed to build or run", s.BadPackages)
	}
	if wall > 0 {
		line += " in " + wall.Round(time.Second).String()
	}
	return line
}

type test struct {
	out  []string
	done bool
}

// Read copies the stream's story to w as it goes — a line per package,
// the output of each failed test — and returns the summary. Lines that are
// not JSON (go vet's, the build's) are copied as they are.
func Read(r io.Reader, w io.Writer) (*Summary, error) {
	s := &Summary{}
	tests := map[string]*test{}     // pkg + " " + test
	pkgOut := map[string][]string{} // output outside any test
	failedIn := map[string]int{}
	type took struct {
		pkg string
		d   float64
	}
	var times, testTimes []took
	cached := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		key := e.Package + " " + e.Test
		if e.Action == "build-output" { // go 1.24: the compiler's words, as JSON
			io.WriteString(w, e.Output)
			continue
		}
		if e.Test == "" {
			switch e.Action {
			case "output":
				pkgOut[e.Package] = append(pkgOut[e.Package], e.Output)
				cached[e.Package] = cached[e.Package] || strings.HasSuffix(strings.TrimSpace(e.Output), "(cached)")
			case "pass":
				if cached[e.Package] {
					fmt.Fprintf(w, "ok    %-50s (cached)\n", e.Package)
					continue
				}
				fmt.Fprintf(w, "ok    %-50s %6.1fs\n", e.Package, e.Elapsed)
				times = append(times, took{e.Package, e.Elapsed})
			case "fail":
				if failedIn[e.Package] == 0 {
					// No test failed: the package did not build or run.
					s.BadPackages++
					io.WriteString(w, strings.Join(pkgOut[e.Package], ""))
				}
				fmt.Fprintf(w, "FAIL  %-50s %6.1fs\n", e.Package, e.Elapsed)
				times = append(times, took{e.Package, e.Elapsed})
			}
			continue
		}
		t := tests[key]
		if t == nil {
			t = &test{}
			tests[key] = t
		}
		switch e.Action {
		case "output":
			t.out = append(t.out, e.Output)
		case "pass":
			s.Passed++
			t.out = nil
			if !strings.Contains(e.Test, "/") {
				testTimes = append(testTimes, took{short(e.Package) + "." + e.Test, e.Elapsed})
			}
		case "skip":
			s.Skipped++
			s.Skips = append(s.Skips, short(e.Package)+"."+e.Test+": "+skipReason(t.out))
			t.out = nil
		case "fail":
			s.Failed++
			failedIn[e.Package]++
			// Each test's own lines (a parent's hold none of its subtests').
			io.WriteString(w, strings.Join(t.out, ""))
			t.out = nil
		}
	}
	slowest := func(ts []took) (out []string) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].d > ts[j].d })
		for _, x := range ts[:min(len(ts), 5)] {
			out = append(out, fmt.Sprintf("%s %.1fs", short(x.pkg), x.d))
		}
		return out
	}
	s.Slowest, s.SlowestTests = slowest(times), slowest(testTimes)
	slices.Sort(s.Skips)
	return s, sc.Err()
}

// short is a package path without the module's: "t", "filters/fold".
func short(pkg string) string {
	if _, rest, ok := strings.Cut(pkg, "github.com/agwatch/ag/"); ok {
		return rest
	}
	return pkg
}

// skipReason is what t.Skip said: the line after "--- SKIP", without the
// file:line it was said at.
func skipReason(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		l := strings.TrimSpace(out[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if _, msg, ok := strings.Cut(l, ": "); ok && strings.Contains(l[:strings.Index(l, ": ")], ".go:") {
			return msg
		}
		return l
	}
	return "no reason given"
}
