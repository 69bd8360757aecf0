package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agwatch/ag/cmd/internal/cli"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/provider"
)

// chats is a fake agent that rewrites each conversation whole:
// <home>/chats/<session>.json, {"messages":[{"id","text"}]}.
type chats struct{ dir string }

func (c *chats) ID() string   { return "chats" }
func (c *chats) Name() string { return "Chats" }
func (c *chats) TranscriptRoots(provider.Env) []provider.Root {
	return []provider.Root{{Dir: c.dir, Globs: []string{"*.json"}}}
}
func (c *chats) NewTranscriptParser(path string) provider.TranscriptParser {
	return &chatParser{session: strings.TrimSuffix(filepath.Base(path), ".json"), seen: map[string]string{}}
}

// chatParser emits a turn.start for each message it has not emitted in
// that version (upserted by id).
type chatParser struct {
	session string
	seen    map[string]string
	wholes  int // ParseWhole calls
}

func (p *chatParser) Parse([]byte, func(*event.Event)) error {
	return errors.New("a whole-file parser was handed a line")
}
func (p *chatParser) Reset() { p.seen = map[string]string{} }
func (p *chatParser) ParseWhole(data []byte, emit func(*event.Event)) error {
	p.wholes++
	var doc struct {
		Messages []struct{ ID, Text string }
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	for _, m := range doc.Messages {
		if p.seen[m.ID] == m.Text {
			continue
		}
		p.seen[m.ID] = m.Text
		e := event.New(event.TurnStart, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), "chats", p.session)
		e.Src, e.ID, e.Text = event.SrcLog, m.ID, m.Text
		emit(&e)
	}
	return nil
}

func chatDoc(msgs ...string) string {
	var parts []string
	for i, m := range msgs {
		parts = append(parts, fmt.Sprintf(`{"id":"m%d","text":%q}`, i+1, m))
	}
	return `{"messages":[` + strings.Join(parts, ",") + "]}\n"
}

// texts are the events' texts (session:text), in order.
func (f *fixture) texts() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(f.stdout.String()), "\n") {
		var e event.Event
		if l != "" && event.Decode([]byte(l), &e) == nil && e.Kind != event.Mark && e.Kind != event.State {
			out = append(out, e.Session+":"+e.Text)
		}
	}
	return out
}

func (f *fixture) waitTexts(want ...string) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := f.texts()
		if strings.Join(got, " ") == strings.Join(want, " ") {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("events\n got %q\nwant %q\nstderr: %s", got, want, f.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (f *fixture) tail(provs ...provider.Provider) *tail {
	tl := newTail(&f.stdout, &f.stderr, f.env, time.Now)
	tl.provs = provs
	return tl
}

func TestWholeFileOnce(t *testing.T) {
	f := newFixture(t)
	c := &chats{dir: f.home + "/chats"}
	f.write(c.dir+"/b.json", chatDoc("b one"))
	f.write(c.dir+"/a.json", chatDoc("a one", "a two"))
	f.write(c.dir+"/c.json", `{"messages":[`)
	// Larger than a whole file may be (sparse: nothing is written).
	big := f.write(c.dir+"/d.json", "")
	if err := os.Truncate(big, provider.MaxWholeFile+1); err != nil {
		t.Fatal(err)
	}
	// Two files reported (and skipped): exit 2, the rest read.
	if code := f.tail(c).main(t.Context(), []string{"--once"}); code != cli.ExitError {
		t.Fatalf("exit %d: %s", code, f.stderr.String())
	}
	if got := strings.Join(f.texts(), " "); got != "a:a one a:a two b:b one" {
		t.Errorf("events: %s", got)
	}
	e := f.stderr.String()
	if !strings.Contains(e, "c.json: unexpected end of JSON input") || !strings.Contains(e, "d.json: 67108865 bytes, more than") || strings.Count(e, "\n") != 2 {
		t.Errorf("stderr: %q", e)
	}
}

func TestWholeFileFollow(t *testing.T) {
	f := newFixture(t)
	c := &chats{dir: f.home + "/chats"}
	p := f.write(c.dir+"/s1.json", chatDoc("hello"))
	f.followWith(f.tail(c))
	f.waitTexts("s1:hello")

	// Rewritten in place: only the new message.
	f.write(p, chatDoc("hello", "second"))
	f.waitTexts("s1:hello", "s1:second")

	// A new copy renamed over it: the same parser, so only what is new.
	tmp := f.write(c.dir+"/.s1.json.tmp", chatDoc("hello", "second", "third"))
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	f.waitTexts("s1:hello", "s1:second", "s1:third")

	// Caught halfway through a rewrite: nothing said, the whole version
	// read once it is there.
	f.write(p, chatDoc("hello", "second", "third")[:30])
	time.Sleep(50 * time.Millisecond)
	f.write(p, chatDoc("hello", "second", "third", "fourth"))
	f.waitTexts("s1:hello", "s1:second", "s1:third", "s1:fourth")

	// Renamed away and back (an agent keeping a backup): still the same.
	if err := os.Rename(p, p+".bak"); err != nil {
		t.Fatal(err)
	}
	f.write(p, chatDoc("hello", "second", "third", "fourth", "fifth"))
	f.waitTexts("s1:hello", "s1:second", "s1:third", "s1:fourth", "s1:fifth")

	// A new conversation appears.
	f.write(c.dir+"/s2.json", chatDoc("other"))
	f.waitTexts("s1:hello", "s1:second", "s1:third", "s1:fourth", "s1:fifth", "s2:other")

	// A file that stays broken is said once.
	f.write(c.dir+"/s3.json", "not json")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(f.stderr.String(), "s3.json: invalid character") {
		if time.Now().After(deadline) {
			t.Fatalf("no error for s3.json: %q", f.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(2 * wholeRetry)
	if e := f.stderr.String(); strings.Count(e, "\n") != 1 {
		t.Errorf("stderr: %q", e)
	}
}

// TestWholeFileBurst: a file written many times in a burst is read a few
// times, not once per write.
func TestWholeFileBurst(t *testing.T) {
	f := newFixture(t)
	c := &chats{dir: f.home + "/chats"}
	p := f.write(c.dir+"/s1.json", chatDoc("m0"))
	tl := f.tail(c)
	f.followWith(tl)
	f.waitTexts("s1:m0")
	var msgs, want []string
	want = append(want, "s1:m0")
	msgs = append(msgs, "m0")
	for i := 1; i <= 50; i++ {
		msgs = append(msgs, fmt.Sprint("m", i))
		want = append(want, fmt.Sprint("s1:m", i))
		f.write(p, chatDoc(msgs...))
	}
	f.waitTexts(want...)
}

// book is a fake agent that keeps its sessions in a "database": db holds
// committed records, db-wal the newer ones, one "id text" a line; extra is
// a file a change to which notifies nobody the reader watches.
type book struct {
	db      string
	readers []*bookReader
}

func (b *book) ID() string                       { return "book" }
func (b *book) Name() string                     { return "Book" }
func (b *book) StorePaths(provider.Env) []string { return []string{b.db} }
func (b *book) NewStoreReader(path string) provider.StoreReader {
	r := &bookReader{path: path, seen: map[string]bool{}}
	b.readers = append(b.readers, r)
	return r
}

type bookReader struct {
	path   string
	seen   map[string]bool
	reads  int
	closed bool
}

func (r *bookReader) Watch() []string { return []string{r.path, r.path + "-wal"} }
func (r *bookReader) Close() error    { r.closed = true; return nil }
func (r *bookReader) Read(emit func(*event.Event)) error {
	r.reads++
	var all []byte
	for _, p := range []string{r.path, r.path + "-wal", r.path + "-extra"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		all = append(all, b...)
	}
	sc := bufio.NewScanner(bytes.NewReader(all))
	for sc.Scan() {
		id, text, _ := strings.Cut(sc.Text(), " ")
		if id == "" || r.seen[id] {
			continue
		}
		r.seen[id] = true
		e := event.New(event.TurnStart, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), "book", "db")
		e.Src, e.ID, e.Text = event.SrcLog, id, text
		emit(&e)
	}
	return nil
}

func TestStoreOnce(t *testing.T) {
	f := newFixture(t)
	b := &book{db: f.home + "/store/book.db"}
	f.write(b.db, "1 first\n")
	f.write(b.db+"-wal", "2 second\n")
	c := &chats{dir: f.home + "/chats"}
	f.write(c.dir+"/s.json", chatDoc("chat"))
	f.write(f.ag+"/spool.ndjson", hookEvent("2026-11-20T10:00:00.000Z", "turn.start", s1))
	if code := f.tail(b, c).main(t.Context(), []string{"--once"}); code != 0 {
		t.Fatalf("exit %d: %s", code, f.stderr.String())
	}
	// The spool first, then files and stores in path order (chats/ < store/).
	want := s1 + ": s:chat db:first db:second"
	if got := strings.Join(f.texts(), " "); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	f.stdout = syncBuffer{}
	f.tail(b, c).main(t.Context(), []string{"--once", "--agent", "book"})
	if got := strings.Join(f.texts(), " "); got != "db:first db:second" {
		t.Errorf("--agent book: %s", got)
	}
}

func TestStoreFollow(t *testing.T) {
	f := newFixture(t)
	b := &book{db: f.home + "/store/book.db"} // the folder is not there yet
	tl := f.tail(b)
	tl.storeEvery = 300 * time.Millisecond
	f.followWith(tl)
	time.Sleep(100 * time.Millisecond)

	// The agent starts: its folder and database appear.
	f.write(b.db, "1 first\n")
	f.waitTexts("db:first")
	// A commit to the write-ahead log alone is news.
	f.appendTo(b.db+"-wal", "2 second\n3 third\n")
	f.waitTexts("db:first", "db:second", "db:third")
	// A change no watched file shows is found by the slow timer.
	f.appendTo(b.db+"-extra", "4 fourth\n")
	f.waitTexts("db:first", "db:second", "db:third", "db:fourth")
	// The log checkpointed into the database and removed: nothing twice.
	f.appendTo(b.db, "2 second\n3 third\n5 fifth\n")
	os.Remove(b.db + "-wal")
	f.waitTexts("db:first", "db:second", "db:third", "db:fourth", "db:fifth")
}

// TestStoreReadsDebounced: a burst of writes to the store's files is a
// few reads, not one per write.
func TestStoreReadsDebounced(t *testing.T) {
	f := newFixture(t)
	b := &book{db: f.home + "/store/book.db"}
	f.write(b.db, "")
	stop := f.followWith(f.tail(b))
	var want []string
	start := time.Now()
	for i := range 200 {
		f.appendTo(b.db+"-wal", fmt.Sprintf("%d r%d\n", i, i))
		want = append(want, fmt.Sprint("db:r", i))
	}
	f.waitTexts(want...)
	stop()
	r := b.readers[len(b.readers)-1]
	if !r.closed {
		t.Error("store not closed")
	}
	reads := r.reads
	if most := 2 + int(time.Since(start)/minReread); reads > most {
		t.Errorf("%d reads for 200 writes in %s (at most %d)", reads, time.Since(start), most)
	}
}

// TestNotRegular: a FIFO (or a device) named like a transcript is never
// opened: --once does not wait on it, and says what it skipped.
func TestNotRegular(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.cfg, "projects", "-w")
	f.write(f.transcript("-w", s1), prompt("2026-11-20T10:00:02.000Z", "hello"))
	fifo := filepath.Join(dir, s2+".jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan int)
	go func() { done <- f.run("--once") }()
	select {
	case code := <-done:
		if code != cli.ExitError { // the FIFO is reported: exit 2
			t.Errorf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ag-tail --once waits on a FIFO")
	}
	if got := strings.Join(f.events(), " "); got != "turn.start@1111" {
		t.Errorf("events: %s", got)
	}
	if e := f.stderr.String(); !strings.Contains(e, s2+".jsonl: not a regular file, skipped") {
		t.Errorf("stderr: %q", e)
	}
}

// TestForeignFile: bytes that are not the format at all give one line,
// whatever the parser, and a run of bad lines in a real file one each.
func TestForeignFile(t *testing.T) {
	f := newFixture(t)
	junk := make([]byte, 1<<20)
	x := uint64(88172645463325252)
	for i := range junk {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		junk[i] = byte(x)
	}
	f.write(f.transcript("-w", s1), string(junk))
	f.write(os.ExpandEnv(f.home+"/.codex/sessions/2026/11/20/rollout-2026-11-20T10-00-00-"+s2+".jsonl"), string(junk))
	f.write(f.ag+"/spool.ndjson", hookEvent("2026-11-20T10:00:00.000Z", "turn.start", s1)+"{bad\n{bad\n{bad\n"+
		hookEvent("2026-11-20T10:00:01.000Z", "turn.end", s1)+"{bad again\n")
	f.run("--once")
	e := f.stderr.String()
	for _, want := range []string{s1 + ".jsonl:", s2 + ".jsonl:", "spool.ndjson:2:", "spool.ndjson:6:"} {
		if strings.Count(e, want) != 1 {
			t.Errorf("%s said %d times", want, strings.Count(e, want))
		}
	}
	if strings.Count(e, "\n") != 4 {
		t.Errorf("stderr:\n%s", e)
	}
}

// slow is a fake agent whose parser takes a while a line.
type slow struct{ dir string }

func (s *slow) ID() string   { return "slow" }
func (s *slow) Name() string { return "Slow" }
func (s *slow) TranscriptRoots(provider.Env) []provider.Root {
	return []provider.Root{{Dir: s.dir, Globs: []string{"*.log"}}}
}
func (s *slow) NewTranscriptParser(string) provider.TranscriptParser { return slowParser{} }

type slowParser struct{}

func (slowParser) Reset() {}
func (slowParser) Parse([]byte, func(*event.Event)) error {
	time.Sleep(5 * time.Millisecond)
	return nil
}

// TestOnceStopsWhenAsked: Ctrl-C or SIGTERM ends a replay at once, in the
// middle of a file and on every core, with the interrupted exit status.
func TestOnceStopsWhenAsked(t *testing.T) {
	f := newFixture(t)
	sl := &slow{dir: f.home + "/slow"}
	for i := range 4 {
		f.write(fmt.Sprintf("%s/%d.log", sl.dir, i), strings.Repeat("{}\n", 2000)) // 10 s each
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	code := f.tail(sl).main(ctx, []string{"--once"})
	if code != cli.ExitInterrupted {
		t.Errorf("exit %d, want %d", code, cli.ExitInterrupted)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stopped after %s", d)
	}
}
