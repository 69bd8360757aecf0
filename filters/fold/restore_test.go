package fold

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// step is one line of a testdata stream: an event, or a tick.
type step struct {
	e    *event.Event
	tick time.Time
}

func readSteps(t *testing.T, path string) []step {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []step
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if tick, ok := strings.CutPrefix(line, "# tick "); ok {
			now, _ := time.Parse(time.RFC3339Nano, tick)
			out = append(out, step{tick: now})
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		e := new(event.Event)
		if err := event.Decode([]byte(line), e); err != nil {
			t.Fatal(err)
		}
		out = append(out, step{e: e})
	}
	return out
}

func (f *Folder) run(steps []step) {
	for _, s := range steps {
		if s.e != nil {
			f.Apply(s.e)
		} else {
			f.Tick(s.tick)
		}
	}
}

// ruleSteps are a rule case's events as steps.
func ruleSteps(tc ruleCase) []step {
	var out []step
	for _, e := range tc.steps {
		if e.Kind == "tick" {
			out = append(out, step{tick: e.T.Time})
		} else {
			out = append(out, step{e: e})
		}
	}
	return out
}

// allRuns are the golden streams and the rule cases, by name.
func allRuns(t *testing.T) map[string][]step {
	ins, _ := filepath.Glob("testdata/*.ndjson")
	if len(ins) == 0 {
		t.Fatal("no testdata/*.ndjson")
	}
	runs := map[string][]step{}
	for _, in := range ins {
		runs[filepath.Base(in)] = readSteps(t, in)
	}
	for _, tc := range ruleCases() {
		runs[tc.name] = ruleSteps(tc)
	}
	return runs
}

// TestRestoreSameAsReplay: a fold restarted from its states (the state
// file) and fed what came after ends where the fold that saw everything
// ends — what a restarted pipeline relies on.
func TestRestoreSameAsReplay(t *testing.T) {
	for in, steps := range allRuns(t) {
		whole := newFolder(t)
		whole.run(steps)
		want := whole.States()
		for k := 0; k <= len(steps); k++ {
			before := newFolder(t)
			before.run(steps[:k])
			after := newFolder(t)
			after.restore(before.Folder)
			after.run(steps[k:])
			got := after.States()
			if len(got) != len(want) {
				t.Errorf("%s restored after step %d: %d sessions, want %d", in, k, len(got), len(want))
				continue
			}
			for i := range want {
				w, g := want[i], got[i]
				w.ID, g.ID = "", ""
				wb, gb := event.AppendJSON(nil, &w), event.AppendJSON(nil, &g)
				if !bytes.Equal(wb, gb) {
					t.Errorf("%s restored after step %d:\n got %s\nwant %s", in, k, gb, wb)
				}
			}
		}
	}
}

// TestBookFields: a field added to session must be saved in book too (or
// be one of those a state already carries, or scratch).
func TestBookFields(t *testing.T) {
	// key, keyStr, st, tokenSince, tokenGen, tokens, hasTok, ctx, hasCtx,
	// cost and hasCost come back from the state itself; dirty, cause,
	// later, laterAt, laterCause and rev are scratch.
	const fromState = 17
	if n, b := reflect.TypeOf(session{}).NumField(), reflect.TypeOf(book{}).NumField(); n != b+fromState {
		t.Errorf("session has %d fields, book %d (+%d from the state): save the new one in persist.go", n, b, fromState)
	}
}

// TestQuietSameStates: a Quiet fold ends in the same states, ids and
// times included, as one that made a state at every change.
func TestQuietSameStates(t *testing.T) {
	for name, steps := range allRuns(t) {
		loud := newFolder(t)
		loud.run(steps)
		quiet := &folder{t: t, Folder: New(Config{Quiet: true})}
		quiet.run(steps)
		want, got := loud.States(), quiet.States()
		if len(got) != len(want) {
			t.Fatalf("%s: %d states, want %d", name, len(got), len(want))
		}
		for i := range want {
			if g, w := event.AppendJSON(nil, &got[i]), event.AppendJSON(nil, &want[i]); !bytes.Equal(g, w) {
				t.Errorf("%s:\n got %s\nwant %s", name, g, w)
			}
		}
	}
}

// TestSavedLines: the cached lines are, after every step of every run,
// what encoding Saved afresh gives.
func TestSavedLines(t *testing.T) {
	for name, steps := range allRuns(t) {
		f := newFolder(t)
		var c LineCache
		for i := range steps {
			f.run(steps[i : i+1])
			if !sameLines(t, f.Folder, &c) {
				t.Fatalf("%s, step %d", name, i)
			}
		}
	}
}

// sameLines checks the cached lines against Saved encoded afresh.
func sameLines(t *testing.T, f *Folder, c *LineCache) bool {
	t.Helper()
	lines, fresh := f.SavedLines(c), f.Saved()
	if len(lines) != len(fresh) {
		t.Errorf("%d lines, %d states", len(lines), len(fresh))
		return false
	}
	ok := true
	for j := range fresh {
		if w := event.AppendJSON(nil, &fresh[j]); !bytes.Equal(lines[j], w) {
			t.Errorf("a cached line is out of date:\n cached %s\n  fresh %s", lines[j], w)
			ok = false
		}
	}
	return ok
}
