package crush

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agwatch/ag/filters/event"
	_ "modernc.org/sqlite"
)

// schema is the part of crush.db the reader reads, as Crush's migrations
// make it (internal/db/migrations, through 20260127): the update
// triggers too, which rewrite updated_at in seconds. sessions.todos is
// Crush's own column (the agent's to-do list), which ag does not read.
const schema = `CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
  cost REAL NOT NULL DEFAULT 0.0, updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TRIGGER update_sessions_updated_at AFTER UPDATE ON sessions BEGIN
  UPDATE sessions SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL default '[]',
  model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT,
  is_summary_message INTEGER DEFAULT 0 NOT NULL);
CREATE TRIGGER update_messages_updated_at AFTER UPDATE ON messages BEGIN
  UPDATE messages SET updated_at = strftime('%s', 'now') WHERE id = new.id; END;
CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages BEGIN
  UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;`

// crushDB is Crush's side: a writable connection in WAL mode, and a
// clock in milliseconds.
type crushDB struct {
	t  testing.TB
	db *sql.DB
	ms int64
	n  int
}

func newCrushDB(t testing.TB) (string, *crushDB) {
	dir := filepath.Join(t.TempDir(), "proj", ".crush")
	os.MkdirAll(dir, 0o700)
	path := filepath.Join(dir, "crush.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	return path, &crushDB{t: t, db: db, ms: 1796400000000}
}

func (c *crushDB) exec(q string, args ...any) {
	c.t.Helper()
	if _, err := c.db.Exec(q, args...); err != nil {
		c.t.Fatal(err)
	}
}

func (c *crushDB) session(id, parent string) {
	var p any
	if parent != "" {
		p = parent
	}
	c.exec("INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES (?, ?, 'New Session', ?, ?)", id, p, c.ms, c.ms)
}

// msg adds a message with parts ([type, data-json] pairs) and returns its id.
func (c *crushDB) msg(session, role, model string, parts ...string) string {
	c.n++
	c.ms += 1000
	id := fmt.Sprintf("msg-%04d", c.n)
	var ps []string
	for i := 0; i+1 < len(parts); i += 2 {
		ps = append(ps, `{"type":"`+parts[i]+`","data":`+parts[i+1]+`}`)
	}
	var m any
	if model != "" {
		m = model
	}
	c.exec("INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
		id, session, role, "["+strings.Join(ps, ",")+"]", m, c.ms, c.ms)
	return id
}

// update rewrites a message's parts, as Crush does while a reply streams.
func (c *crushDB) update(id string, parts ...string) {
	var ps []string
	for i := 0; i+1 < len(parts); i += 2 {
		ps = append(ps, `{"type":"`+parts[i]+`","data":`+parts[i+1]+`}`)
	}
	c.exec("UPDATE messages SET parts = ? WHERE id = ?", "["+strings.Join(ps, ",")+"]", id)
}

// usage saves a response's usage on the session, as Crush's agent does.
func (c *crushDB) usage(session string, prompt, completion int64, cost float64) {
	c.exec("UPDATE sessions SET prompt_tokens = ?, completion_tokens = ?, cost = cost + ? WHERE id = ?", prompt, completion, cost, session)
}

func text(s string) string { b, _ := json.Marshal(map[string]string{"text": s}); return string(b) }
func finish(reason string) string {
	return `{"reason":"` + reason + `","time":1796400100}`
}
func call(id, name, input string) string {
	b, _ := json.Marshal(map[string]any{"id": id, "name": name, "input": input, "finished": true})
	return string(b)
}
func result(id, name, content string, isErr bool) string {
	b, _ := json.Marshal(map[string]any{"tool_call_id": id, "name": name, "content": content, "is_error": isErr})
	return string(b)
}

func read(t *testing.T, s *Store) []event.Event {
	t.Helper()
	var out []event.Event
	if err := s.Read(func(e *event.Event) { out = append(out, *e) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func kinds(evs []event.Event) string {
	var k []string
	for _, e := range evs {
		s := e.Kind
		if e.Reason != "" {
			s += ":" + e.Reason
		}
		k = append(k, s)
	}
	return strings.Join(k, " ")
}

// A session's turns read as Crush writes them, a read between each step:
// a turn with a command approved, one denied, one cancelled, one failed;
// a sub-agent's session is not read; a checkpoint restored goes on with
// nothing emitted twice.
func TestStore(t *testing.T) {
	path, c := newCrushDB(t)
	s := NewStore(path)
	if evs := read(t, s); len(evs) != 0 {
		t.Fatalf("empty: %v", evs)
	}
	const id = "3c1e0d6a-5b1f-4f61-9d0e-1f0a6a2b9c11"
	c.session(id, "")
	c.msg(id, "user", "", "text", text("please RUN: echo marker > marker.txt"))
	a := c.msg(id, "assistant", "fake-model", "text", text("I will run it."))
	got := read(t, s)
	if kinds(got) != "turn.start" || got[0].Text != "please RUN: echo marker > marker.txt" || got[0].Cwd != filepath.Dir(filepath.Dir(path)) || got[0].Session != id {
		t.Fatalf("first read: %s %+v", kinds(got), got)
	}
	c.update(a, "text", text("I will run it."), "tool_call", call("call_1", "bash", `{"command":"echo marker > marker.txt","description":"Run it"}`), "finish", finish("tool_use"))
	c.usage(id, 4000, 20, 0.0125)
	got = read(t, s)
	if kinds(got) != "tool.start meter" || got[0].Tool != "bash" || got[0].Text != "echo marker > marker.txt" || got[0].ToolID != "call_1" {
		t.Fatalf("the call: %s %+v", kinds(got), got)
	}
	if m := got[1]; m.Model != "fake-model" || m.Tokens.In != 4000 || m.Tokens.Out != 20 || *m.CostUSD != 0.0125 || m.Context.Used != 4020 {
		t.Errorf("meter %s", event.Marshal(&m))
	}
	c.msg(id, "tool", "", "tool_result", result("call_1", "bash", "", false))
	c.msg(id, "assistant", "fake-model", "text", text("Done."), "finish", finish("end_turn"))
	c.usage(id, 4100, 5, 0.01)
	got = read(t, s)
	if kinds(got) != "tool.end turn.end meter" || got[1].Text != "Done." || *got[2].CostUSD != 0.0225 {
		t.Fatalf("the end: %s %+v", kinds(got), got)
	}
	cp, err := s.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}

	c.msg(id, "user", "", "text", text("RUN: rm x"))
	c.msg(id, "assistant", "fake-model", "tool_call", call("call_2", "bash", `{"command":"rm x"}`), "finish", finish("tool_use"))
	c.msg(id, "tool", "", "tool_result", result("call_2", "bash", DeniedText, true))
	c.msg(id, "user", "", "text", text("think SLOW"))
	c.msg(id, "assistant", "fake-model", "text", text("Hm"), "finish", finish("canceled"))
	c.msg(id, "user", "", "text", text("FAIL: gone"))
	c.msg(id, "assistant", "fake-model", "finish", `{"reason":"error","time":1796400200,"message":"400 FAKE-FAIL: gone"}`)
	c.session("child-1", id)
	c.msg("child-1", "user", "", "text", text("a sub-agent's prompt"))
	want := "turn.start tool.start tool.end:denied turn.start interrupt:canceled turn.start turn.fail:error"
	got = read(t, s)
	if kinds(got) != want || got[len(got)-1].Text != "400 FAKE-FAIL: gone" {
		t.Errorf("after: %s\nwant %s", kinds(got), want)
	}
	// A reader restored from the checkpoint emits the same, no more.
	r := NewStore(path)
	if err := r.Restore(cp); err != nil {
		t.Fatal(err)
	}
	if again := read(t, r); kinds(again) != want {
		t.Errorf("restored: %s\nwant %s", kinds(again), want)
	}
	if evs := read(t, r); len(evs) != 0 {
		t.Errorf("a read with nothing new: %s", kinds(evs))
	}
	if err := r.Restore([]byte(`{"v":9}`)); err == nil {
		t.Error("Restore took another version")
	}
	s.Close()
	r.Close()
}

// A store that is not there yet is no error, and one listed by
// projects.json is where StorePaths looks.
func TestStorePaths(t *testing.T) {
	data := t.TempDir()
	env := func(k string) string { return map[string]string{"HOME": "/h", "CRUSH_GLOBAL_DATA": data}[k] }
	if got := New().StorePaths(env); len(got) != 0 {
		t.Errorf("no projects.json: %v", got)
	}
	os.WriteFile(filepath.Join(data, "projects.json"), []byte(`{"projects":[{"path":"/w/a","data_dir":"/w/a/.crush","last_accessed":"2026-12-01T10:00:00Z"},
		{"path":"/w/b","data_dir":"state"},{"path":"rel","data_dir":"x"}]}`), 0o600)
	if got := strings.Join(New().StorePaths(env), " "); got != "/w/a/.crush/crush.db /w/b/state/crush.db" {
		t.Errorf("StorePaths: %s", got)
	}
	if evs := read(t, NewStore(filepath.Join(data, "none", "crush.db"))); len(evs) != 0 {
		t.Errorf("a missing store: %v", evs)
	}
}

// FuzzParts: a message's parts, whatever they hold, never stop a read
// and give valid events.
func FuzzParts(f *testing.F) {
	f.Add("assistant", `[{"type":"tool_call","data":{"id":"c","name":"bash","input":"{\"command\":\"ls\"}"}},{"type":"finish","data":{"reason":"end_turn","time":5}}]`)
	f.Add("tool", `[{"type":"tool_result","data":{"tool_call_id":"c","content":"User denied permission","is_error":true}}]`)
	f.Add("user", `not json`)
	f.Fuzz(func(t *testing.T, role, parts string) {
		s := NewStore("/p/.crush/crush.db")
		ss := &sessSeen{Open: true}
		var ps []part
		json.Unmarshal([]byte(parts), &ps)
		s.message("s", "m", role, "x", 1796400000000, ps, ss, func(e *event.Event) {
			if err := e.Validate(); err != nil {
				t.Fatal(err)
			}
			var back event.Event
			line := event.Marshal(e)
			if err := event.Decode(line[:len(line)-1], &back); err != nil {
				t.Fatalf("round trip: %v", err)
			}
		})
	})
}
