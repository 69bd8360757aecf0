package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/filters/state"
	"github.com/agwatch/ag/providers/provider"
)

// lines splits output into event lines by kind: marks, states and the rest.
func splitOut(out string) (marks, states, events []string) {
	for _, l := range strings.Split(out, "\n") {
		var e event.Event
		if l == "" || event.Decode([]byte(l), &e) != nil {
			continue
		}
		switch e.Kind {
		case event.Mark:
			marks = append(marks, e.ID)
		case event.State:
			states = append(states, l)
		default:
			events = append(events, l)
		}
	}
	return
}

// fold plays ag-fold's part in a restart: it ties a state file (holding
// one state, to see it come back) to the last mark in out and lists the
// events after it, but the last lag of them, as if they were still in the
// pipe when the pipeline died. It returns the events folded.
func (f *fixture) fold(out string, lag int) []string {
	f.t.Helper()
	var m state.Mark
	var folded, after []string
	for _, l := range strings.Split(out, "\n") {
		var e event.Event
		if l == "" || event.Decode([]byte(l), &e) != nil {
			continue
		}
		switch e.Kind {
		case event.Mark:
			m, folded, after = state.Mark{ID: e.ID}, append(folded, after...), nil
		case event.State:
		default:
			after = append(after, l)
		}
	}
	if m.ID == "" {
		f.t.Fatal("no mark in the output")
	}
	after = after[:max(0, len(after)-lag)]
	for _, l := range after {
		var e event.Event
		event.Decode([]byte(l), &e)
		m.After = append(m.After, state.Key(e.ID, []byte(l)))
	}
	st := event.New(event.State, f.now, "claude", "restored")
	st.Status = event.StatusDone
	if err := state.WriteMarked(paths.StateFile(f.env), f.now, state.Writer{}, []event.Event{st}, m); err != nil {
		f.t.Fatal(err)
	}
	return append(folded, after...)
}

// settle waits until the follower has written a checkpoint covering
// everything (its output ends with a mark and stays so).
func (f *fixture) settle() {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	last := ""
	for {
		out := f.stdout.String()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if out == last && strings.Contains(lines[len(lines)-1], `"kind":"mark"`) {
			return
		}
		last = out
		if time.Now().After(deadline) {
			f.t.Fatalf("no checkpoint after the output:\n%s\nstderr: %s", out, f.stderr.String())
		}
		time.Sleep(testCursorEvery)
	}
}

// onceEvents are the events a fresh --once reads now.
func (f *fixture) onceEvents() []string {
	var out, errs syncBuffer
	code := newTail(&out, &errs, f.env, func() time.Time { return f.now }).main(f.t.Context(), []string{"--once"})
	if code != 0 || errs.String() != "" {
		f.t.Fatalf("--once: exit %d: %s", code, errs.String())
	}
	_, _, ev := splitOut(out.String())
	return ev
}

func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		var miss, extra []string
		for _, l := range w {
			if !slices.Contains(g, l) {
				miss = append(miss, l)
			}
		}
		for _, l := range g {
			if !slices.Contains(w, l) {
				extra = append(extra, l)
			}
		}
		t.Errorf("%s: %d events, want %d\nmissing %q\nextra %q", what, len(got), len(want), miss, extra)
	}
}

// run1 is a follower's first run over the fixture's files, stopped the
// way kill -9 stops it (nothing more is written: no last checkpoint).
func (f *fixture) run1(write func()) string {
	f.t.Helper()
	stop := f.followWith(newTail(&f.stdout, &f.stderr, f.env, func() time.Time { return f.now }))
	f.settle()
	if write != nil {
		write()
		f.settle()
	}
	stop()
	out := f.stdout.String()
	f.stdout = syncBuffer{}
	return out
}

func TestCursorResume(t *testing.T) {
	for _, lag := range []int{0, 1, 3, 100} {
		t.Run(fmt.Sprint("lag ", lag), func(t *testing.T) {
			f := newFixture(t)
			p1 := f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:01.000Z", "one")+answer("2026-11-20T10:00:02.000Z", "m1", 5))
			f.write(f.ag+"/spool.ndjson", hookEvent("2026-11-20T10:00:00.000Z", "session.start", s1))
			// The first run checkpoints after its replay, then not again
			// before it dies: what it wrote since is after the mark.
			f.ckEvery = time.Hour
			stop1 := f.followWith(newTail(&f.stdout, &f.stderr, f.env, func() time.Time { return f.now }))
			f.waitFor("session.start@1111", "turn.start@1111", "meter@1111", "turn.end@1111")
			f.appendTo(p1, prompt("2026-11-20T10:00:03.000Z", "two")+answer("2026-11-20T10:00:04.000Z", "m2", 6))
			f.appendTo(f.ag+"/spool.ndjson", hookEvent("2026-11-20T10:00:05.000Z", "turn.end", s1))
			f.waitFor("session.start@1111", "turn.start@1111", "meter@1111", "turn.end@1111",
				"turn.start@1111", "meter@1111", "turn.end@1111", "turn.end@1111")
			stop1()
			out1 := f.stdout.String()
			f.stdout, f.ckEvery = syncBuffer{}, 0
			if _, _, ev := splitOut(out1[strings.LastIndex(out1, `"kind":"mark"`):]); len(ev) != 4 {
				t.Fatalf("%d events after the mark:\n%s", len(ev), out1)
			}
			folded := f.fold(out1, lag)

			// While it is down: more lines, half a line, a new session.
			f.appendTo(p1, prompt("2026-11-20T10:00:06.000Z", "three"))
			f.appendTo(p1, answer("2026-11-20T10:00:07.000Z", "m3", 7)[:30])
			f.write(f.transcript("-w", s2), prompt("2026-11-20T10:00:08.000Z", "new"))

			stop := f.followWith(newTail(&f.stdout, &f.stderr, f.env, func() time.Time { return f.now }))
			f.settle()
			f.appendTo(p1, answer("2026-11-20T10:00:07.000Z", "m3", 7)[30:])
			f.settle()
			stop()
			marks, states, events := splitOut(f.stdout.String())
			if len(states) != 1 || !strings.Contains(states[0], `"session":"restored"`) {
				t.Errorf("states written on resume: %q", states)
			}
			if len(marks) < 2 {
				t.Errorf("marks: %q", marks)
			}
			if lag == 0 && len(events) > 5 {
				t.Errorf("a restart with nothing lost re-read %d events: %q", len(events), events)
			}
			sameSet(t, "folded before + after the restart", append(folded, events...), f.onceEvents())
			if e := f.stderr.String(); e != "" {
				t.Errorf("stderr: %s", e)
			}
		})
	}
}

// TestCursorFaults: what happens to files while ag-tail is down. Every
// event of what the files hold afterwards is folded once, and of the
// files changed under it, what ag-fold had stays (it is not taken back).
func TestCursorFaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		down func(f *fixture, p1, p2 string)
		// want is the events the second run writes (beyond what was
		// folded), from the fixture's state after down.
		want func(f *fixture, p1, p2 string) []string
	}{
		{"truncated and written again", func(f *fixture, p1, p2 string) {
			os.Truncate(p1, 0)
			f.appendTo(p1, prompt("2026-11-20T11:00:00.000Z", "after truncation"))
		}, onlyFile(0)},
		{"replaced by a new file", func(f *fixture, p1, p2 string) {
			tmp := p1 + ".new"
			f.write(tmp, prompt("2026-11-20T10:00:01.000Z", "one")+prompt("2026-11-20T11:00:00.000Z", "replaced"))
			os.Rename(tmp, p1)
		}, onlyFile(0)},
		{"rewritten in place to the same size", func(f *fixture, p1, p2 string) {
			b, _ := os.ReadFile(p1)
			os.WriteFile(p1, bytes.Replace(b, []byte(`"one"`), []byte(`"eno"`), 1), 0o644)
		}, func(f *fixture, p1, p2 string) []string {
			// Read again from its start; its response was counted before.
			var out []string
			for _, l := range onlyFile(0)(f, p1, p2) {
				if !strings.Contains(l, `"kind":"meter"`) {
					out = append(out, l)
				}
			}
			return out
		}},
		{"deleted", func(f *fixture, p1, p2 string) {
			os.Remove(p1)
		}, none},
		{"spool rotated", func(f *fixture, p1, p2 string) {
			spool := f.ag + "/spool.ndjson"
			f.appendTo(spool, hookEvent("2026-11-20T11:00:00.000Z", "turn.start", s1))
			os.Rename(spool, spool+".1")
			f.appendTo(spool, hookEvent("2026-11-20T11:00:01.000Z", "turn.end", s1))
		}, func(f *fixture, p1, p2 string) []string {
			return spoolLines(f, "2026-11-20T11:00:00.000Z", "2026-11-20T11:00:01.000Z")
		}},
		{"a line finished", func(f *fixture, p1, p2 string) {
			f.appendTo(p2, answer("2026-11-20T10:00:09.000Z", "m9", 9)[40:])
		}, func(f *fixture, p1, p2 string) []string {
			all := f.onceEvents()
			return all[len(all)-2:] // the meter and turn.end of m9
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p1 := f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:01.000Z", "one")+answer("2026-11-20T10:00:02.000Z", "m1", 5))
			p2 := f.write(f.transcript("-x", s2), prompt("2026-11-20T10:00:08.000Z", "two")+answer("2026-11-20T10:00:09.000Z", "m9", 9)[:40])
			f.write(f.ag+"/spool.ndjson", hookEvent("2026-11-20T10:00:00.000Z", "session.start", s1))
			if n := len(f.onceEvents()); n != 5 {
				t.Fatalf("the fixture reads as %d events", n)
			}
			f.fold(f.run1(nil), 0)
			tc.down(f, p1, p2)
			stop := f.followWith(newTail(&f.stdout, &f.stderr, f.env, func() time.Time { return f.now }))
			f.settle()
			stop()
			_, _, events := splitOut(f.stdout.String())
			sameSet(t, "written after the restart", events, tc.want(f, p1, p2))
		})
	}
}

// onlyFile: the events of the i-th transcript in path order, read whole.
func onlyFile(i int) func(f *fixture, p1, p2 string) []string {
	return func(f *fixture, p1, p2 string) []string {
		var out []string
		for _, l := range f.onceEvents() {
			if strings.Contains(l, []string{p1, p2}[i]) {
				out = append(out, l)
			}
		}
		return out
	}
}

func none(*fixture, string, string) []string { return nil }

func spoolLines(f *fixture, ts ...string) []string {
	var out []string
	for _, l := range f.onceEvents() {
		for _, t := range ts {
			if strings.Contains(l, `"t":"`+t+`"`) && strings.Contains(l, `"src":"hook"`) {
				out = append(out, l)
			}
		}
	}
	return out
}

// TestCursorReplay: --replay reads everything, and a cursor another
// follower holds is not shared.
func TestCursorReplayAndLock(t *testing.T) {
	f := newFixture(t)
	f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:01.000Z", "one"))
	f.fold(f.run1(nil), 0)
	f.followWith(newTail(&f.stdout, &f.stderr, f.env, time.Now), "--replay")
	f.settle()
	if _, states, ev := splitOut(f.stdout.String()); len(states) != 0 || len(ev) != 1 {
		t.Errorf("--replay: states %q, events %q", states, ev)
	}
	g := &fixture{t: t, home: f.home, ag: f.ag, cfg: f.cfg, now: f.now}
	g.followWith(newTail(&g.stdout, &g.stderr, g.env, time.Now))
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(g.stderr.String(), "another ag-tail --follow keeps the cursor") {
		if time.Now().After(deadline) {
			t.Fatalf("second follower: %q", g.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	g.waitFor("turn.start@1111")
	if marks, _, _ := splitOut(g.stdout.String()); len(marks) != 0 {
		t.Errorf("a follower without the cursor wrote marks: %q", marks)
	}
}

// TestCursorClock: the wall clock jumping (NTP, suspend, a user setting
// it) between and during runs changes nothing: the cursor goes by what
// was read, not by when.
func TestCursorClock(t *testing.T) {
	f := newFixture(t)
	p1 := f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:01.000Z", "one"))
	var at time.Time
	var mu sync.Mutex
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return at
	}
	set := func(t time.Time) { mu.Lock(); at = t; mu.Unlock() }
	set(time.Now().Add(48 * time.Hour))
	stop := f.followWith(newTail(&f.stdout, &f.stderr, f.env, clock))
	f.settle()
	set(time.Now().Add(-72 * time.Hour))
	f.appendTo(p1, prompt("2026-11-20T10:00:02.000Z", "two"))
	f.settle()
	stop()
	folded := f.fold(f.stdout.String(), 0)
	f.stdout = syncBuffer{}
	f.appendTo(p1, prompt("2026-11-20T10:00:03.000Z", "three"))
	set(time.Unix(0, 0))
	stop = f.followWith(newTail(&f.stdout, &f.stderr, f.env, clock))
	f.settle()
	stop()
	_, _, events := splitOut(f.stdout.String())
	sameSet(t, "across clock jumps", append(folded, events...), f.onceEvents())
}

// plain is a fake agent whose parser keeps state between lines (the
// number of lines) and is no Checkpointer: a restart teaches it again.
type plain struct{ dir string }

func (p *plain) ID() string   { return "plain" }
func (p *plain) Name() string { return "Plain" }
func (p *plain) TranscriptRoots(provider.Env) []provider.Root {
	return []provider.Root{{Dir: p.dir, Globs: []string{"*.log"}}}
}
func (p *plain) NewTranscriptParser(path string) provider.TranscriptParser { return &counter{} }

type counter struct{ n int }

func (c *counter) Reset() { c.n = 0 }
func (c *counter) Parse(line []byte, emit func(*event.Event)) error {
	c.n++
	e := event.New(event.TurnStart, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), "plain", "p")
	e.Text, e.ID = fmt.Sprintf("%d %s", c.n, line), fmt.Sprint(c.n)
	emit(&e)
	return nil
}

func TestCursorNoCheckpointer(t *testing.T) {
	f := newFixture(t)
	pl := &plain{dir: f.home + "/plain"}
	p := f.write(pl.dir+"/a.log", "{a\n{b\n")
	stop := f.followWith(f.tail(pl))
	f.settle()
	stop()
	f.fold(f.stdout.String(), 0)
	f.stdout = syncBuffer{}
	f.appendTo(p, "{c\n")
	stop = f.followWith(f.tail(pl))
	f.settle()
	stop()
	if got := strings.Join(f.texts(), " "); got != "p:3 {c" {
		t.Errorf("after the restart: %q", got)
	}
}

// TestCursorWholeAndStore: whole files and stores resume through their
// Checkpointers.
func TestCursorWholeAndStore(t *testing.T) {
	f := newFixture(t)
	c := &ckChats{chats{dir: f.home + "/chats"}}
	b := &ckBook{book{db: f.home + "/store/book.db"}}
	p := f.write(c.dir+"/s1.json", chatDoc("hello"))
	f.write(b.db, "1 first\n")
	stop := f.followWith(f.tail(c, b))
	f.settle()
	stop()
	f.fold(f.stdout.String(), 0)
	f.stdout = syncBuffer{}
	f.write(p, chatDoc("hello", "again"))
	f.appendTo(b.db, "2 second\n")
	stop = f.followWith(f.tail(c, b))
	f.settle()
	stop()
	if got := strings.Join(f.texts(), " "); got != "s1:again db:second" {
		t.Errorf("after the restart: %q", got)
	}
}

// ckChats and ckBook are the fakes of seams_test.go with checkpoints.
type ckChats struct{ chats }

func (c *ckChats) NewTranscriptParser(path string) provider.TranscriptParser {
	return &ckChat{c.chats.NewTranscriptParser(path).(*chatParser)}
}

type ckChat struct{ *chatParser }

func (p *ckChat) Checkpoint() ([]byte, error) {
	var ids []string
	for id, text := range p.seen {
		ids = append(ids, id+"="+text)
	}
	slices.Sort(ids)
	return []byte(strings.Join(ids, "\n")), nil
}

func (p *ckChat) Restore(b []byte) error {
	for _, l := range strings.Split(string(b), "\n") {
		if id, text, ok := strings.Cut(l, "="); ok {
			p.seen[id] = text
		}
	}
	return nil
}

type ckBook struct{ book }

func (b *ckBook) NewStoreReader(path string) provider.StoreReader {
	return &ckBookReader{b.book.NewStoreReader(path).(*bookReader)}
}

type ckBookReader struct{ *bookReader }

func (r *ckBookReader) Checkpoint() ([]byte, error) {
	var ids []string
	for id := range r.seen {
		ids = append(ids, id)
	}
	return []byte(strings.Join(ids, " ")), nil
}

func (r *ckBookReader) Restore(b []byte) error {
	for _, id := range strings.Fields(string(b)) {
		r.seen[id] = true
	}
	return nil
}

// TestCursorFile: the cursor reads back what it wrote.
func TestCursorFile(t *testing.T) {
	dir := t.TempDir()
	c, err := openCursor(dir, "scope \"x\"\n")
	if err != nil {
		t.Fatal(err)
	}
	c.add("/a b/\"c\".jsonl", version{seq: 1, dev: 3, ino: 4, off: 99, line: 7, tail: 1 << 60, started: true, hasState: true, state: []byte("st\x00")})
	c.add("/spool", version{seq: 1, off: 5})
	if err := c.commit(checkpoint{seq: 1, skip: []uint64{1, 1 << 63}}, []uint64{42, 43}); err != nil {
		t.Fatal(err)
	}
	c.add("/spool", version{seq: 2, gone: true})
	if err := c.commit(checkpoint{seq: 2}, nil); err != nil {
		t.Fatal(err)
	}
	c.close()
	d, err := openCursor(dir, "scope \"x\"\n")
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if d.instance != c.instance || len(d.seqs) != 2 || d.nmeters != 2 || !slices.Equal(d.seqs[0].skip, []uint64{1, 1 << 63}) {
		t.Fatalf("read back %+v from %+v", d, c)
	}
	if v, ok := d.at("/a b/\"c\".jsonl", 2); !ok || !v.same(&c.files["/a b/\"c\".jsonl"][0]) {
		t.Errorf("version: %+v", v)
	}
	if _, ok := d.at("/spool", 2); ok {
		t.Error("a removed file is still there")
	}
	if v, ok := d.at("/spool", 1); !ok || v.off != 5 {
		t.Error("the first checkpoint lost the spool")
	}
	m := map[uint64]struct{}{}
	d.loadMeters(2, m)
	if len(m) != 2 {
		t.Errorf("meters: %v", m)
	}
	// Another scope (other options) starts afresh.
	d.close()
	e, _ := openCursor(dir, "other")
	defer e.close()
	if e.instance == c.instance || len(e.seqs) != 0 {
		t.Errorf("another scope resumed: %+v", e)
	}
	if _, err := os.Stat(filepath.Join(dir, "tail.cursor")); err != nil {
		t.Error(err)
	}
}

// TestCursorDormant: after a restart the files as the checkpoint left them
// are opened only when written to; one changed meanwhile in a way its size
// does not show is read again from its start.
func TestCursorDormant(t *testing.T) {
	f := newFixture(t)
	p1 := f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:01.000Z", "one"))
	p2 := f.write(f.transcript("-x", s2), prompt("2026-11-20T10:00:02.000Z", "two"))
	f.fold(f.run1(nil), 0)
	stop := f.followWith(newTail(&f.stdout, &f.stderr, f.env, func() time.Time { return f.now }))
	f.settle()
	if _, _, ev := splitOut(f.stdout.String()); len(ev) != 0 {
		t.Fatalf("a restart with nothing new wrote %q", ev)
	}
	f.appendTo(p1, prompt("2026-11-20T10:00:03.000Z", "three"))
	f.waitFor("turn.start@1111")
	b, _ := os.ReadFile(p2)
	os.WriteFile(p2, bytes.Replace(b, []byte(`"two"`), []byte(`"owt"`), 1), 0o644)
	f.waitFor("turn.start@1111", "turn.start@2222")
	stop()
	if !strings.Contains(f.stdout.String(), `"text":"owt"`) || strings.Count(f.stdout.String(), `"text":"three"`) != 1 {
		t.Errorf("after the restart:\n%s", f.stdout.String())
	}
}

// TestCursorLastCheckpoint: stopped (SIGTERM), a follower checkpoints what
// it wrote, so ag-fold's state file lists nothing after the last mark.
func TestCursorLastCheckpoint(t *testing.T) {
	f := newFixture(t)
	p1 := f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:01.000Z", "one"))
	f.ckEvery, f.graceful = time.Hour, true
	stop := f.followWith(newTail(&f.stdout, &f.stderr, f.env, func() time.Time { return f.now }))
	f.waitFor("turn.start@1111")
	f.appendTo(p1, prompt("2026-11-20T10:00:02.000Z", "two"))
	f.waitFor("turn.start@1111", "turn.start@1111")
	stop()
	out := strings.TrimSpace(f.stdout.String())
	if last := out[strings.LastIndex(out, "\n")+1:]; !strings.Contains(last, `"kind":"mark"`) {
		t.Errorf("the output does not end with a mark:\n%s", out)
	}
}

// TestCursorPreviousStateFile: a new ag-fold that starts before this run
// reads the state file claims it empty, having kept the marked one beside
// (state.KeepPrevious): the restart goes on from that.
func TestCursorPreviousStateFile(t *testing.T) {
	f := newFixture(t)
	p1 := f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:01.000Z", "one"))
	f.fold(f.run1(nil), 0)
	path := paths.StateFile(f.env)
	state.KeepPrevious(path)
	if err := state.Write(path, f.now, state.Writer{}, nil); err != nil {
		t.Fatal(err)
	}
	f.appendTo(p1, prompt("2026-11-20T10:00:02.000Z", "two"))
	stop := f.followWith(newTail(&f.stdout, &f.stderr, f.env, func() time.Time { return f.now }))
	f.settle()
	stop()
	_, states, events := splitOut(f.stdout.String())
	if len(states) != 1 || len(events) != 1 || !strings.Contains(events[0], `"text":"two"`) {
		t.Errorf("states %q, events %q", states, events)
	}
}
