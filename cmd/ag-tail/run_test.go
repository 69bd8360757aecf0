package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/cmd/internal/cli"
	"github.com/agwatch/ag/filters/event"
)

// fixture is a home with a state dir and a Claude config dir.
type fixture struct {
	t              *testing.T
	home, ag, cfg  string
	now            time.Time
	stdout, stderr syncBuffer
	ckEvery        time.Duration // the followers' cursorEvery, else testCursorEvery
	graceful       bool          // followers stop as on SIGTERM, not as on kill -9
}

// testCursorEvery is the tests' cursorEvery.
const testCursorEvery = 100 * time.Millisecond

func newFixture(t *testing.T) *fixture {
	d := t.TempDir()
	f := &fixture{t: t, home: d + "/home", ag: d + "/home/.ag", cfg: d + "/cfg",
		now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	os.MkdirAll(f.home, 0o755)
	return f
}

func (f *fixture) env(k string) string {
	return map[string]string{"HOME": f.home, "AG_DIR": f.ag, "CLAUDE_CONFIG_DIR": f.cfg}[k]
}

func (f *fixture) write(rel, data string) string {
	p := filepath.Join(f.home, rel)
	if strings.HasPrefix(rel, "/") {
		p = rel
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) appendTo(p, data string) {
	os.MkdirAll(filepath.Dir(p), 0o755)
	fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		f.t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(data); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) transcript(project, session string) string {
	return filepath.Join(f.cfg, "projects", project, session+".jsonl")
}

func (f *fixture) run(args ...string) int {
	return newTail(&f.stdout, &f.stderr, f.env, func() time.Time { return f.now }).main(context.Background(), args)
}

// events are the kinds (and sessions) written so far.
func (f *fixture) events() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(f.stdout.String()), "\n") {
		var e event.Event
		if l == "" || event.Decode([]byte(l), &e) != nil || e.Kind == event.Mark || e.Kind == event.State {
			continue
		}
		out = append(out, e.Kind+"@"+e.Session[:min(4, len(e.Session))])
	}
	return out
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const (
	s1 = "11111111-1111-4111-8111-111111111111"
	s2 = "22222222-2222-4222-8222-222222222222"
)

func prompt(ts, text string) string {
	return fmt.Sprintf(`{"isSidechain":false,"promptId":"p-%s","type":"user","message":{"role":"user","content":%q},"uuid":"u-%s","timestamp":"%s","cwd":"/w"}`+"\n", ts, text, ts, ts)
}

func answer(ts, msg string, in int) string {
	return fmt.Sprintf(`{"isSidechain":false,"message":{"model":"claude-opus-4-6","id":"%s","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":%d,"output_tokens":1}},"requestId":"r-%s","type":"assistant","uuid":"v-%s","timestamp":"%s"}`+"\n", msg, in, msg, ts, ts)
}

func hookEvent(ts, kind, session string) string {
	return fmt.Sprintf(`{"v":1,"t":"%s","kind":"%s","agent":"claude","session":"%s","src":"hook"}`+"\n", ts, kind, session)
}

func TestOnceOrderAndDedupe(t *testing.T) {
	f := newFixture(t)
	f.write(f.ag+"/spool.ndjson.1", hookEvent("2026-11-20T10:00:00.000Z", "session.start", s1))
	f.write(f.ag+"/spool.ndjson", hookEvent("2026-11-20T10:00:01.000Z", "turn.start", s1)+"{broken\n")
	// s2 sorts after s1; the response copied into it counts once, in s1.
	f.write(f.transcript("-w", s2), prompt("2026-11-20T11:00:00.000Z", "again")+answer("2026-11-20T10:00:03.000Z", "m1", 5)+answer("2026-11-20T11:00:02.000Z", "m2", 7))
	f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:02.000Z", "hello")+answer("2026-11-20T10:00:03.000Z", "m1", 5)+`{"type":"user","message":{"content":"half a line`)
	// The broken spool line makes the exit 2; the stream went on.
	if code := f.run("--once"); code != cli.ExitError {
		t.Fatalf("exit %d: %s", code, f.stderr.String())
	}
	want := []string{"session.start@1111", "turn.start@1111", "turn.start@1111", "meter@1111", "turn.end@1111",
		"turn.start@2222", "turn.end@2222", "meter@2222", "turn.end@2222"}
	if got := f.events(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events\n got %v\nwant %v", got, want)
	}
	// The broken spool line is reported with file:line; the transcript's
	// unfinished last line is not (it is not written yet).
	if e := f.stderr.String(); !strings.Contains(e, "spool.ndjson:2: ") || strings.Count(e, "\n") != 1 {
		t.Errorf("stderr: %q", e)
	}
}

func TestOnceSinceAgentWhere(t *testing.T) {
	f := newFixture(t)
	old := f.write(f.transcript("-w", s1), prompt("2026-11-18T10:00:00.000Z", "old"))
	os.Chtimes(old, f.now.Add(-48*time.Hour), f.now.Add(-48*time.Hour))
	p := f.write(f.transcript("-w", s2), prompt("2026-11-19T10:00:00.000Z", "yesterday")+prompt("2026-11-20T11:30:00.000Z", "now"))
	os.Chtimes(p, f.now, f.now)
	f.write(f.ag+"/spool.ndjson", hookEvent("2026-11-20T11:00:00.000Z", "turn.start", s1)+
		strings.Replace(hookEvent("2026-11-20T11:00:00.000Z", "turn.start", "c1"), "claude", "codex", 1))
	f.run("--once", "--since", "2h")
	if got := strings.Join(f.events(), " "); got != "turn.start@1111 turn.start@c1 turn.start@2222" {
		t.Errorf("--since 2h: %s", got)
	}
	f.stdout = syncBuffer{}
	f.run("--once", "--since", "1d", "--agent", "claude", "--where", `.src=="log"`)
	if got := strings.Join(f.events(), " "); got != "turn.start@2222" {
		t.Errorf("--since 1d --agent claude --where: %s", got)
	}
	for _, bad := range [][]string{{"--since", "soon"}, {"--agent", "nobody"}, {"--once", "--follow"}, {"--where", ".["}, {"stray"}} {
		if code := f.run(bad...); code != cli.ExitError {
			t.Errorf("%v: exit %d, want %d", bad, code, cli.ExitError)
		}
	}
}

// follow runs ag-tail --follow until the test ends.
func (f *fixture) follow(args ...string) {
	f.followWith(newTail(&f.stdout, &f.stderr, f.env, time.Now), args...)
}

// followWith runs tl with --follow until the test ends or stop is called.
func (f *fixture) followWith(tl *tail, args ...string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	tl.cursorEvery = cmp.Or(f.ckEvery, testCursorEvery)
	tl.asKilled = !f.graceful
	go func() {
		done <- tl.main(ctx, append([]string{"--follow"}, args...))
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if code := <-done; code != cli.ExitInterrupted {
				f.t.Errorf("--follow ended with %d", code)
			}
		})
	}
	f.t.Cleanup(stop)
	return stop
}

// waitFor waits until the events written are want.
func (f *fixture) waitFor(want ...string) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := f.events()
		if strings.Join(got, " ") == strings.Join(want, " ") {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("events\n got %v\nwant %v\nstderr: %s", got, want, f.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestFollow(t *testing.T) {
	f := newFixture(t)
	f.write(f.ag+"/spool.ndjson", hookEvent("2026-11-20T10:00:00.000Z", "session.start", s1))
	p1 := f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:01.000Z", "hello"))
	f.follow()
	f.waitFor("session.start@1111", "turn.start@1111") // replay

	// A line is read once its newline is there.
	line := answer("2026-11-20T10:00:02.000Z", "m1", 5)
	f.appendTo(p1, line[:40])
	time.Sleep(200 * time.Millisecond)
	f.appendTo(p1, line[40:])
	f.waitFor("session.start@1111", "turn.start@1111", "meter@1111", "turn.end@1111")

	// A new project folder and session file are discovered.
	p2 := f.transcript("-new", s2)
	f.write(p2, prompt("2026-11-20T10:00:03.000Z", "new"))
	f.waitFor("session.start@1111", "turn.start@1111", "meter@1111", "turn.end@1111", "turn.start@2222")

	// Truncated and rewritten: read again from the start.
	if err := os.Truncate(p1, 0); err != nil {
		t.Fatal(err)
	}
	f.appendTo(p1, prompt("2026-11-20T10:00:04.000Z", "after truncation"))
	f.waitFor("session.start@1111", "turn.start@1111", "meter@1111", "turn.end@1111", "turn.start@2222", "turn.start@1111")

	// Deleted, then written again.
	os.Remove(p2)
	time.Sleep(100 * time.Millisecond)
	f.write(p2, prompt("2026-11-20T10:00:05.000Z", "back"))
	f.waitFor("session.start@1111", "turn.start@1111", "meter@1111", "turn.end@1111", "turn.start@2222", "turn.start@1111", "turn.start@2222")

	// The spool rotates (renamed to .1, a new one started): nothing twice.
	spool := f.ag + "/spool.ndjson"
	f.appendTo(spool, hookEvent("2026-11-20T10:00:06.000Z", "turn.start", s1))
	if err := os.Rename(spool, spool+".1"); err != nil {
		t.Fatal(err)
	}
	f.appendTo(spool, hookEvent("2026-11-20T10:00:07.000Z", "turn.end", s1))
	f.waitFor("session.start@1111", "turn.start@1111", "meter@1111", "turn.end@1111", "turn.start@2222", "turn.start@1111", "turn.start@2222",
		"turn.start@1111", "turn.end@1111")
	if e := f.stderr.String(); e != "" {
		t.Errorf("stderr: %s", e)
	}
}

func TestFollowRootAppearsLater(t *testing.T) {
	f := newFixture(t) // neither the state dir nor the config dir exist yet
	f.follow()
	time.Sleep(100 * time.Millisecond)
	f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:01.000Z", "hello"))
	f.waitFor("turn.start@1111")
	f.appendTo(f.ag+"/spool.ndjson", hookEvent("2026-11-20T10:00:02.000Z", "turn.end", s1))
	f.waitFor("turn.start@1111", "turn.end@1111")
}

func TestFollowSince(t *testing.T) {
	f := newFixture(t)
	old := f.write(f.transcript("-w", s1), prompt("2026-11-18T10:00:00.000Z", "old"))
	long := time.Now().Add(-72 * time.Hour)
	os.Chtimes(old, long, long)
	f.write(f.transcript("-w", s2), prompt(time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "recent"))
	f.follow("--since", "1h")
	f.waitFor("turn.start@2222")
	// The stale file is followed from its end: new lines still count.
	f.appendTo(old, prompt(time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "resumed"))
	f.waitFor("turn.start@2222", "turn.start@1111")
}

// holder is a parser that holds each line's event until Drain.
type holder struct{ held []event.Event }

func (h *holder) Parse(line []byte, emit func(*event.Event)) error {
	e := event.New(event.TurnStart, time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), "test", string(line))
	h.held = append(h.held, e)
	return nil
}

func (h *holder) Reset() { h.held = nil }

func (h *holder) Drain(emit func(*event.Event)) {
	for i := range h.held {
		emit(&h.held[i])
	}
	h.held = nil
}

func TestDrainAtEndOfData(t *testing.T) {
	f := newFixture(t)
	p := f.write(f.home+"/x.log", "a\nb\n")
	tl := newTail(&f.stdout, &f.stderr, f.env, time.Now)
	k, err := tl.newSink(tl.commit)
	if err != nil {
		t.Fatal(err)
	}
	s := &source{path: p, parser: &holder{}}
	if err := s.open(); err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if err := k.read(s); err != nil {
		t.Fatal(err)
	}
	k.flush()
	tl.buf.Flush()
	if got := strings.Join(f.events(), " "); got != "turn.start@a turn.start@b" {
		t.Errorf("drained: %q", got)
	}
}
