package pi

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// parse runs a session file through a parser: the events, and the lines
// that failed.
func parse(t testing.TB, p *Session, data []byte) (out []byte, bad []int) {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n++
		if err := p.Parse(sc.Bytes(), func(e *event.Event) { out = append(out, event.Marshal(e)...) }); err != nil {
			bad = append(bad, n)
		}
	}
	return out, bad
}

// TestSessionGolden: a tool turn as Pi 0.73.1 writes it (agents-live.md
// §4b): each assistant response a meter — tokens, the context it used
// against the window models.json declares, the cost so far — and a broken
// line reported.
func TestSessionGolden(t *testing.T) {
	data, _ := os.ReadFile("testdata/session.jsonl")
	p := NewSession(ID, "/h/.pi/agent/sessions/--tmp-w--/x.jsonl", NewModels("testdata/models.json").Window)
	got, bad := parse(t, p, data)
	if len(bad) != 1 || bad[0] != 8 {
		t.Errorf("bad lines %v, want [8]", bad)
	}
	golden := "testdata/session.golden"
	if *update {
		os.WriteFile(golden, got, 0o644)
	}
	want, _ := os.ReadFile(golden)
	if !bytes.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s", got, want)
	}
	p.Reset()
	if again, _ := parse(t, p, data); !bytes.Equal(again, got) {
		t.Error("after Reset the file reads differently")
	}
}

func TestModelsBeside(t *testing.T) {
	if got := ModelsBeside("/h/.pi/agent/sessions/--w--/2026_x.jsonl"); got != "/h/.pi/agent/models.json" {
		t.Errorf("ModelsBeside = %s", got)
	}
	if NewModels(filepath.Join(t.TempDir(), "none.json")).Window("fake", "fake-model") != 0 {
		t.Error("a window from no file")
	}
}

// TestCorpusOmp: omp's session file (same format, ../shared/corpus) gives
// one meter per assistant response, the aborted one too (zero usage).
func TestCorpusOmp(t *testing.T) {
	data, err := os.ReadFile("../../../shared/corpus/omp/session/omp-v3-ask-tool-round.jsonl")
	if err != nil {
		t.Skip("no corpus:", err)
	}
	got, bad := parse(t, NewSession("omp", "/x.jsonl", nil), data)
	if len(bad) != 0 || strings.Count(string(got), `"kind":"meter"`) != 2 || !strings.Contains(string(got), `"session":"01a0063f-51ed-7000-9ec2-7c8d71b759ca"`) ||
		!strings.Contains(string(got), `"model":"deepseek-v4-flash"`) {
		t.Errorf("omp corpus: bad %v\n%s", bad, got)
	}
}

func FuzzSession(f *testing.F) {
	data, _ := os.ReadFile("testdata/session.jsonl")
	for _, l := range bytes.Split(data, []byte("\n")) {
		f.Add(l)
	}
	f.Add([]byte(`{"type":"message","message":{"role":"assistant","usage":{"input":-1,"totalTokens":1e99,"cost":{"total":"x"}}}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := NewSession(ID, "/x.jsonl", func(string, string) int64 { return 1000 })
		p.Parse([]byte(`{"type":"session","id":"s"}`), func(*event.Event) {})
		p.Parse(line, func(e *event.Event) {
			b := event.Marshal(e)
			var back event.Event
			if err := event.Decode(b[:len(b)-1], &back); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if e.Context != nil && e.Context.LeftPct != nil && (*e.Context.LeftPct < 0 || *e.Context.LeftPct > 100) {
				t.Fatalf("left %d", *e.Context.LeftPct)
			}
		})
	})
}

// TestModelsFirst: one Models follows its files — the first that exists
// is read, read again when it changes, and another takes over when it
// goes.
func TestModelsFirst(t *testing.T) {
	dir := t.TempDir()
	yml, js := filepath.Join(dir, "models.yml"), filepath.Join(dir, "models.json")
	m := NewModelsFirst(yml, js)
	at := time.Now()
	write := func(path, body string) {
		os.WriteFile(path, []byte(body), 0o600)
		at = at.Add(time.Minute) // a new mtime even within one clock tick
		os.Chtimes(path, at, at)
	}
	write(js, `{"providers":{"p":{"models":[{"id":"m","contextWindow":1000}]}}}`)
	if n := m.Window("p", "m"); n != 1000 {
		t.Errorf("json: %d", n)
	}
	write(yml, "providers:\n  p:\n    models:\n      - id: m\n        contextWindow: 2000\n")
	if n := m.Window("p", "m"); n != 2000 {
		t.Errorf("yml over json: %d", n)
	}
	write(yml, "providers:\n  p:\n    models:\n      - id: m\n        contextWindow: 3000\n")
	if n := m.Window("other", "m"); n != 3000 {
		t.Errorf("yml edited, another provider's name: %d", n)
	}
	os.Remove(yml)
	if n := m.Window("p", "m"); n != 1000 {
		t.Errorf("yml gone: %d", n)
	}
}

// FuzzModels: whatever models.yml or models.json holds, Window never
// panics and a window is never negative.
func FuzzModels(f *testing.F) {
	f.Add([]byte("providers:\n  p:\n    models:\n      - id: m\n        contextWindow: 2000\n"), true)
	f.Add([]byte(`{"providers":{"p":{"models":[{"id":"m","contextWindow":1e300}]}}}`), false)
	f.Add([]byte("providers: {p: {models: [{id: [1], contextWindow: -5}, ~]}}"), true)
	f.Fuzz(func(t *testing.T, b []byte, isYAML bool) {
		path := filepath.Join(t.TempDir(), map[bool]string{true: "models.yml", false: "models.json"}[isYAML])
		os.WriteFile(path, b, 0o600)
		if n := NewModelsFirst(path).Window("p", "m"); n < 0 {
			t.Fatalf("window %d", n)
		}
	})
}
