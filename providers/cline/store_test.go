package cline

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/internal/parsertest"
	"github.com/agwatch/ag/providers/provider"
	_ "modernc.org/sqlite"
)

// schema is Cline 3.0.65's sessions table, as it creates it.
const schema = `CREATE TABLE sessions (
		session_id TEXT PRIMARY KEY, source TEXT NOT NULL, pid INTEGER NOT NULL, started_at TEXT NOT NULL, ended_at TEXT,
		exit_code INTEGER, status TEXT NOT NULL, status_lock INTEGER NOT NULL DEFAULT 0, interactive INTEGER NOT NULL,
		provider TEXT NOT NULL, model TEXT NOT NULL, cwd TEXT NOT NULL, workspace_root TEXT NOT NULL, team_name TEXT,
		enable_tools INTEGER NOT NULL, enable_spawn INTEGER NOT NULL, enable_teams INTEGER NOT NULL,
		parent_session_id TEXT, parent_agent_id TEXT, agent_id TEXT, conversation_id TEXT,
		is_subagent INTEGER NOT NULL DEFAULT 0, prompt TEXT, metadata_json TEXT, transcript_path TEXT NOT NULL DEFAULT '',
		hook_path TEXT NOT NULL, messages_path TEXT, updated_at TEXT NOT NULL)`

// recordedWorlds replays the recorded session into a sessions.db, one at
// a time in the same folder (the events name the messages files): each
// write is one status Cline gave a session, with the messages file as it
// was then; updated_at is when the recording saw it.
func recordedWorlds(t *testing.T) func(t *testing.T) (func() provider.StoreReader, []func()) {
	root := filepath.Join(t.TempDir(), "data")
	manifests := readVersions(t, "manifests-3.0.65.jsonl", "manifest")
	messages := readVersions(t, "messages-3.0.65.jsonl", "file")
	var last *sql.DB
	t.Cleanup(func() {
		if last != nil {
			last.Close()
		}
	})
	return func(t *testing.T) (func() provider.StoreReader, []func()) {
		if last != nil {
			last.Close()
		}
		os.RemoveAll(root)
		path := filepath.Join(root, "db", "sessions.db")
		os.MkdirAll(filepath.Dir(path), 0o700)
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		last = db
		if _, err := db.Exec(schema); err != nil {
			t.Fatal(err)
		}
		var writes []func()
		for _, mv := range manifests {
			var m struct {
				SessionID string `json:"session_id"`
				Status    string `json:"status"`
				Cwd       string `json:"cwd"`
			}
			json.Unmarshal(mv.data, &m)
			var file []byte
			for _, v := range messages {
				if v.seen <= mv.seen && strings.Contains(string(v.data[:200]), `"sessionId":"`+m.SessionID+`"`) {
					file = v.data
				}
			}
			msgs := filepath.Join(root, "sessions", m.SessionID, m.SessionID+".messages.json")
			at := time.Unix(0, mv.seen).UTC().Format("2006-01-02T15:04:05.000Z")
			writes = append(writes, func() {
				os.MkdirAll(filepath.Dir(msgs), 0o700)
				if file != nil {
					os.WriteFile(msgs, file, 0o600)
				}
				if _, err := db.Exec(`INSERT INTO sessions (session_id, source, pid, started_at, status, interactive, provider, model, cwd,
 workspace_root, enable_tools, enable_spawn, enable_teams, hook_path, messages_path, updated_at)
 VALUES (?, 'cli', 16855, ?, ?, 1, 'openai-compatible', 'fake-model', ?, ?, 1, 1, 1, '', ?, ?)
 ON CONFLICT(session_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`,
					m.SessionID, at, m.Status, m.Cwd, m.Cwd, msgs, at); err != nil {
					t.Fatal(err)
				}
			})
		}
		return func() provider.StoreReader { return NewStore(path) }, writes
	}
}

// TestStore: the recorded session's statuses, read after each as ag-tail
// reads them: a wait for each approval dialog — the call and its command
// from the messages file, switch_to_act_mode a plan — and its end;
// nothing for the other statuses.
func TestStore(t *testing.T) {
	t.Parallel()
	open, writes := recordedWorlds(t)(t)
	r := open()
	defer r.Close()
	var got []string
	for _, w := range writes {
		w()
		if err := r.Read(func(e *event.Event) {
			if e.Agent != ID || e.Session != recordedSession || e.Src != event.SrcLog || e.Cwd != "/tmp/ccap/project" {
				t.Errorf("%s", event.Marshal(e))
			}
			got = append(got, strings.Join([]string{e.Kind, e.Attention, e.Tool, e.ToolID, e.Text}, " "))
		}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"wait permission run_commands call_fake000004 echo marker > marker.txt", "wait.end    ",
		"wait permission run_commands call_fake000006 echo denied > denied.txt", "wait.end    ",
		"wait permission run_commands call_fake000008 echo esc > esc.txt", "wait.end    ",
		"wait plan switch_to_act_mode call_fake000019 ", "wait.end    ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestStoreCheckpoints: checkpointed after any status, a fresh reader
// goes on as one that read them all (parsertest).
func TestStoreCheckpoints(t *testing.T) {
	t.Parallel()
	parsertest.StoreCheckpoints(t, recordedWorlds(t))
}

// TestStoreMissing: no database yet is no error; a database Cline is
// still creating neither.
func TestStoreMissing(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(filepath.Join(dir, "sessions.db"))
	if err := s.Read(func(*event.Event) { t.Error("an event") }); err != nil {
		t.Fatal(err)
	}
	db, _ := sql.Open("sqlite", "file:"+filepath.Join(dir, "sessions.db"))
	db.Exec("CREATE TABLE other (x)")
	db.Close()
	if err := s.Read(func(*event.Event) { t.Error("an event") }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Restore([]byte(`{"v":2}`)); err == nil {
		t.Error("another version's checkpoint")
	}
}

// TestPendingCall: the last call without a result, across messages; a
// file that is not Cline's says nothing.
func TestPendingCall(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ file, want string }{
		{`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"run_commands","input":{"commands":["ls"]}},{"type":"tool_use","id":"b","name":"read_files","input":{"files":[{"path":"/x"}]}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"b"}]}]}`, "run_commands a ls"},
		{`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"editor","input":{"path":"/w/a.go"}}]}]}`, "editor a /w/a.go"},
		{`{"messages":[{"role":"assistant","content":[{"type":"text","text":"hi"}]}]}`, "  "},
		{`not json`, "  "},
	} {
		p := filepath.Join(dir, "m.json")
		os.WriteFile(p, []byte(tc.file), 0o600)
		tool, id, text := PendingCall(p)
		if got := tool + " " + id + " " + text; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.file, got, tc.want)
		}
	}
	if tool, _, _ := PendingCall(filepath.Join(dir, "none")); tool != "" {
		t.Error("a file that is not there")
	}
}

func FuzzPendingCall(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"run_commands","input":{"commands":["ls"]}}]}]}`))
	f.Add([]byte(`{"messages":[{"content":"x"},{"content":[{"type":"tool_result"}]}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "m.json")
		os.WriteFile(p, data, 0o600)
		PendingCall(p)
	})
}
