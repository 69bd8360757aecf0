package testsum

import (
	"strings"
	"testing"
	"time"
)

// A stream as go test -json writes it: a package that passes with a skip,
// one whose subtest fails, one that does not build, and vet's plain lines.
const stream = `# github.com/agwatch/ag/x
x.go:3:2: undefined: y
{"Action":"start","Package":"github.com/agwatch/ag/filters/fold"}
{"Action":"run","Package":"github.com/agwatch/ag/filters/fold","Test":"TestA"}
{"Action":"output","Package":"github.com/agwatch/ag/filters/fold","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"github.com/agwatch/ag/filters/fold","Test":"TestA","Elapsed":0.1}
{"Action":"run","Package":"github.com/agwatch/ag/filters/fold","Test":"TestPicture"}
{"Action":"output","Package":"github.com/agwatch/ag/filters/fold","Test":"TestPicture","Output":"    picture_test.go:21: no chromium\n"}
{"Action":"output","Package":"github.com/agwatch/ag/filters/fold","Test":"TestPicture","Output":"--- SKIP: TestPicture (0.00s)\n"}
{"Action":"skip","Package":"github.com/agwatch/ag/filters/fold","Test":"TestPicture","Elapsed":0}
{"Action":"pass","Package":"github.com/agwatch/ag/filters/fold","Elapsed":1.5}
{"Action":"run","Package":"github.com/agwatch/ag/t","Test":"TestB"}
{"Action":"run","Package":"github.com/agwatch/ag/t","Test":"TestB/sub"}
{"Action":"output","Package":"github.com/agwatch/ag/t","Test":"TestB/sub","Output":"    b_test.go:9: want 2, got 3\n"}
{"Action":"output","Package":"github.com/agwatch/ag/t","Test":"TestB/sub","Output":"    --- FAIL: TestB/sub (0.01s)\n"}
{"Action":"fail","Package":"github.com/agwatch/ag/t","Test":"TestB/sub","Elapsed":0.01}
{"Action":"output","Package":"github.com/agwatch/ag/t","Test":"TestB","Output":"--- FAIL: TestB (0.02s)\n"}
{"Action":"fail","Package":"github.com/agwatch/ag/t","Test":"TestB","Elapsed":0.02}
{"Action":"pass","Package":"github.com/agwatch/ag/t","Test":"TestC","Elapsed":0.5}
{"Action":"fail","Package":"github.com/agwatch/ag/t","Elapsed":9.5}
{"Action":"output","Package":"github.com/agwatch/ag/x","Output":"FAIL\tgithub.com/agwatch/ag/x [build failed]\n"}
{"Action":"fail","Package":"github.com/agwatch/ag/x","Elapsed":0}
`

func TestRead(t *testing.T) {
	var out strings.Builder
	s, err := Read(strings.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Passed != 2 || s.Failed != 2 || s.Skipped != 1 || s.BadPackages != 1 || s.OK() {
		t.Errorf("summary %+v", s)
	}
	if want := []string{"filters/fold.TestPicture: no chromium"}; strings.Join(s.Skips, "|") != strings.Join(want, "|") {
		t.Errorf("skips %q, want %q", s.Skips, want)
	}
	for _, want := range []string{
		"x.go:3:2: undefined: y\n", // not JSON: as it came
		"ok    github.com/agwatch/ag/filters/fold",
		"    b_test.go:9: want 2, got 3\n    --- FAIL: TestB/sub (0.01s)\n--- FAIL: TestB (0.02s)\n",
		"FAIL  github.com/agwatch/ag/t",
		"FAIL\tgithub.com/agwatch/ag/x [build failed]\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "=== RUN   TestA") {
		t.Errorf("a passing test's output was shown:\n%s", out.String())
	}
	if got, want := s.Line(4*time.Minute+10*time.Second), "make test: FAILED — 2 passed, 2 failed, 1 skipped, 1 package(s) failed to build or run in 4m10s"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	if s.Slowest[0] != "t 9.5s" || s.SlowestTests[0] != "t.TestC 0.5s" {
		t.Errorf("slowest %q, %q", s.Slowest, s.SlowestTests)
	}
	// A package go test did not run again says so.
	out.Reset()
	Read(strings.NewReader(`{"Action":"output","Package":"p","Output":"ok  \tp\t(cached)\n"}`+"\n"+`{"Action":"pass","Package":"p","Elapsed":0}`+"\n"), &out)
	if !strings.Contains(out.String(), "(cached)") {
		t.Errorf("a cached package: %q", out.String())
	}
}
