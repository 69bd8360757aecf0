package opencode

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	_ "modernc.org/sqlite"
)

// schema is the part of OpenCode 1.18.33's opencode.db the reader reads,
// as OpenCode creates it.
const schema = "CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `directory` text NOT NULL, `cost` real DEFAULT 0 NOT NULL, `time_created` integer NOT NULL);" +
	"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);" +
	"CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);"

// writer is OpenCode's side: a writable connection in WAL mode.
type writer struct {
	t  testing.TB
	db *sql.DB
	n  int
}

func newDB(t testing.TB) (string, *writer) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	return path, &writer{t: t, db: db}
}

func (w *writer) exec(q string, args ...any) {
	w.t.Helper()
	if _, err := w.db.Exec(q, args...); err != nil {
		w.t.Fatal(err)
	}
}

func (w *writer) session(id, parent string, cost float64) {
	var p any
	if parent != "" {
		p = parent
	}
	w.exec("INSERT INTO session (id, project_id, parent_id, directory, cost, time_created) VALUES (?, 'prj', ?, '/w', ?, 1) ON CONFLICT(id) DO UPDATE SET cost = excluded.cost", id, p, cost)
}

// step adds an assistant message with a text part and its step-finish.
func (w *writer) step(session string, in, out, cached int64) {
	w.n++
	msg := fmt.Sprintf("msg_%04d", w.n)
	at := int64(1796124758000 + w.n)
	w.exec("INSERT INTO message VALUES (?, ?, ?, ?, ?)", msg, session, at, at,
		`{"role":"assistant","modelID":"fake-model","providerID":"fake","tokens":{"input":1}}`)
	w.exec("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", "prt_t"+msg, msg, session, at, at, `{"type":"text","text":"hi"}`)
	w.exec("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", "prt_s"+msg, msg, session, at, at,
		fmt.Sprintf(`{"reason":"stop","type":"step-finish","tokens":{"total":%d,"input":%d,"output":%d,"reasoning":1,"cache":{"write":0,"read":%d}},"cost":0.5}`, in+out+1+cached, in, out, cached))
}

func readAll(t testing.TB, s *Store) []event.Event {
	t.Helper()
	var out []event.Event
	if err := s.Read(func(e *event.Event) { out = append(out, *e) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func window(string) int64 { return 128000 }

// TestStore: each finished step is one meter — the model as provider/model,
// the step's tokens, the context the step used against the window the
// config declares, the cost of the session with its sub-agents — and a
// sub-agent's steps are its parent's, with sub. Read emits only what is
// new; a checkpoint goes on after the last step read.
func TestStore(t *testing.T) {
	path, w := newDB(t)
	s := &Store{path: path, Windows: window}
	defer s.Close()
	if got := readAll(t, s); len(got) != 0 {
		t.Fatalf("empty database: %d events", len(got))
	}
	w.session("ses_a", "", 0.5)
	w.step("ses_a", 100, 20, 4000)
	got := readAll(t, s)
	if len(got) != 1 {
		t.Fatalf("one step: %d events", len(got))
	}
	e := got[0]
	want := `{"v":1,"t":"2026-12-01T11:32:38.001Z","kind":"meter","agent":"opencode","session":"ses_a","src":"log","id":"` + e.ID + `","transcript":"` + path +
		`","model":"fake/fake-model","tokens":{"in":100,"out":21,"cache_read":4000,"cache_write":0},"context":{"used":4121,"size":128000,"left_pct":97},"cost_usd":0.5}` + "\n"
	if string(event.Marshal(&e)) != want {
		t.Errorf("meter\n got %s\nwant %s", event.Marshal(&e), want)
	}
	if len(readAll(t, s)) != 0 {
		t.Error("a second Read with nothing new emitted events")
	}
	w.session("ses_c", "ses_a", 0.25)
	w.step("ses_c", 10, 1, 0)
	got = readAll(t, s)
	if len(got) != 1 || got[0].Session != "ses_a" || got[0].Sub != "ses_c" || got[0].Context != nil || *got[0].CostUSD != 0.75 {
		t.Errorf("sub-agent's step: %s", event.Marshal(&got[0]))
	}
	cp, _ := s.Checkpoint()
	w.step("ses_a", 1, 1, 0)
	r := &Store{path: path, Windows: window}
	defer r.Close()
	if err := r.Restore(cp); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, r); len(got) != 1 || got[0].Tokens.In != 1 {
		t.Errorf("after a checkpoint: %d events", len(got))
	}
	if err := r.Restore([]byte(`{"v":9}`)); err == nil {
		t.Error("a checkpoint of another version was taken")
	}
}

// TestStoreUndo: the newest rows deleted (what /undo took back goes when
// the next prompt is sent) and new ones written in their rowids, before
// the next Read or between two; VACUUM's renumbering reads the same way.
// Every new step is a meter once, and none read before comes again.
func TestStoreUndo(t *testing.T) {
	ids := func(evs []event.Event) (s []int64) {
		for _, e := range evs {
			s = append(s, e.Tokens.In)
		}
		return s
	}
	undo := func(w *writer, from int) {
		w.exec("DELETE FROM part WHERE message_id >= ?", fmt.Sprintf("msg_%04d", from))
		w.exec("DELETE FROM message WHERE id >= ?", fmt.Sprintf("msg_%04d", from))
	}
	for _, tc := range []struct {
		name string
		run  func(w *writer, s *Store) []event.Event
		want []int64
		// another store read them (restored from s's checkpoint)
		other bool
	}{
		{"the last turn deleted, a new one in its rowids", func(w *writer, s *Store) []event.Event {
			undo(w, 3)
			w.step("ses_a", 30, 1, 0)
			return readAll(t, s)
		}, []int64{30}, false},
		{"deleted and read, then the new one", func(w *writer, s *Store) []event.Event {
			undo(w, 2)
			got := readAll(t, s)
			w.step("ses_a", 30, 1, 0)
			return append(got, readAll(t, s)...)
		}, []int64{30}, false},
		{"two new turns where one was", func(w *writer, s *Store) []event.Event {
			undo(w, 3)
			w.step("ses_a", 30, 1, 0)
			w.step("ses_a", 40, 1, 0)
			return readAll(t, s)
		}, []int64{30, 40}, false},
		{"renumbered by VACUUM", func(w *writer, s *Store) []event.Event {
			w.exec("DELETE FROM part WHERE id = 'prt_tmsg_0001'") // a gap VACUUM closes
			w.exec("VACUUM")
			w.step("ses_a", 30, 1, 0)
			return readAll(t, s)
		}, []int64{30}, false},
		{"a checkpoint taken before the undo", func(w *writer, s *Store) []event.Event {
			cp, _ := s.Checkpoint()
			undo(w, 3)
			w.step("ses_a", 30, 1, 0)
			r := &Store{path: s.path, Windows: window}
			defer r.Close()
			if err := r.Restore(cp); err != nil {
				t.Fatal(err)
			}
			return readAll(t, r)
		}, []int64{30}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, w := newDB(t)
			s := &Store{path: path, Windows: window}
			defer s.Close()
			w.session("ses_a", "", 0.5)
			for _, in := range []int64{10, 11, 12} {
				w.step("ses_a", in, 1, 0)
			}
			if got := ids(readAll(t, s)); len(got) != 3 {
				t.Fatalf("first read: %v", got)
			}
			if got := ids(tc.run(w, s)); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("meters %v, want %v", got, tc.want)
			}
			if got := readAll(t, s); len(got) != 0 && !tc.other {
				t.Errorf("a Read with nothing new: %v", ids(got))
			}
		})
	}
}

// TestStoreMissing: a database that is not there yet, or that OpenCode
// has created but not filled with its tables yet, is no error.
func TestStoreMissing(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "opencode.db")
	db, _ := sql.Open("sqlite", "file:"+empty+"?_pragma=journal_mode(wal)")
	db.Exec("CREATE TABLE migration (id text)")
	defer db.Close()
	if got := readAll(t, &Store{path: empty}); len(got) != 0 {
		t.Errorf("a database without OpenCode's tables: %d events", len(got))
	}
	s := &Store{path: filepath.Join(t.TempDir(), "none.db")}
	if got := readAll(t, s); len(got) != 0 {
		t.Errorf("%d events", len(got))
	}
	if w := s.Watch(); len(w) != 2 || !strings.HasSuffix(w[1], "-wal") {
		t.Errorf("Watch = %q", w)
	}
}

// TestStoreConcurrentWriter: OpenCode writes steps while ag reads: every
// step is read exactly once, in order, the writer never waits on the
// reader, and the reader never fails.
func TestStoreConcurrentWriter(t *testing.T) {
	path, w := newDB(t)
	w.session("ses_a", "", 0)
	s := &Store{path: path}
	defer s.Close()
	const steps = 300
	var wg sync.WaitGroup
	wg.Add(1)
	var slowest time.Duration
	go func() {
		defer wg.Done()
		for i := 0; i < steps; i++ {
			start := time.Now()
			w.step("ses_a", int64(i), 1, 0)
			slowest = max(slowest, time.Since(start))
		}
	}()
	var got []event.Event
	deadline := time.Now().Add(60 * time.Second)
	for len(got) < steps && time.Now().Before(deadline) {
		if err := s.Read(func(e *event.Event) { got = append(got, *e) }); err != nil {
			t.Fatalf("read while written: %v", err)
		}
	}
	wg.Wait()
	got = append(got, readAll(t, s)...)
	if len(got) != steps {
		t.Fatalf("read %d steps, want %d", len(got), steps)
	}
	for i, e := range got {
		if e.Tokens.In != int64(i) {
			t.Fatalf("step %d read as the one with input %d", i, e.Tokens.In)
		}
	}
	if slowest > 5*time.Second {
		t.Errorf("a write waited %s", slowest)
	}
}

// FuzzMeter: whatever a part or message holds, a step becomes a meter
// that encodes and decodes, or nothing.
func FuzzMeter(f *testing.F) {
	f.Add([]byte(`{"type":"step-finish","tokens":{"total":9,"input":4,"output":1,"cache":{"read":4}},"cost":0}`), []byte(`{"modelID":"m","providerID":"p"}`))
	f.Add([]byte(`{"tokens":{"input":-5,"output":1e300,"cache":[]}}`), []byte(`[]`))
	f.Add([]byte(`not json`), []byte(`{"modelID":7}`))
	s := &Store{path: "/x.db", Windows: window}
	f.Fuzz(func(t *testing.T, part, msg []byte) {
		e, ok := s.meter(&stepRow{rowid: 1, created: 1796124758000, session: "s", part: part, message: msg})
		if !ok {
			return
		}
		line := event.Marshal(&e)
		var back event.Event
		if err := event.Decode(line[:len(line)-1], &back); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if e.Tokens.In < 0 || e.Tokens.Out < 0 || (e.Context != nil && e.Context.LeftPct != nil && (*e.Context.LeftPct < 0 || *e.Context.LeftPct > 100)) {
			t.Fatalf("bad meter %s", line)
		}
	})
}
