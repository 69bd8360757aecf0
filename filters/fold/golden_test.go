package fold

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestGolden folds each testdata/*.ndjson (lines "# tick TIME" run Tick)
// and compares every state written, then the final states, with its .golden.
func TestGolden(t *testing.T) {
	ins, _ := filepath.Glob("testdata/*.ndjson")
	if len(ins) == 0 {
		t.Fatal("no testdata/*.ndjson")
	}
	for _, in := range ins {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".ndjson"), func(t *testing.T) {
			got := foldFile(t, in)
			golden := strings.TrimSuffix(in, ".ndjson") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s (go test -update rewrites it):\n%s", in, golden, diffLines(want, got))
			}
		})
	}
}

func foldFile(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := newFolder(t)
	var out bytes.Buffer
	write := func(es []event.Event) {
		for i := range es {
			out.Write(event.AppendJSON(nil, &es[i]))
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if tick, ok := strings.CutPrefix(line, "# tick "); ok {
			now, err := time.Parse(time.RFC3339Nano, tick)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			out.WriteString(line + "\n")
			write(f.Tick(now))
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		var e event.Event
		if err := event.Decode([]byte(line), &e); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		for _, s := range f.Apply(&e) {
			f.check(s)
			out.Write(event.AppendJSON(nil, &s))
		}
	}
	out.WriteString("# final\n")
	write(f.States())
	return out.Bytes()
}

func diffLines(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}
