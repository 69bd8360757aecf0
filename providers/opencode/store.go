package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Stores       = (*Provider)(nil)
	_ provider.Checkpointer = (*Store)(nil)
)

// Driver is the database/sql driver the store is read through. The
// program that reads stores links it (ag-tail: modernc.org/sqlite, pure
// Go, so builds stay cgo-free); the others, which only detect or key
// OpenCode, never pay for an SQLite engine at start.
const Driver = "sqlite"

// StorePaths: OpenCode keeps every session in one SQLite database.
func (*Provider) StorePaths(env provider.Env) []string { return []string{DBPath(env)} }

// NewStoreReader reads meters from the database at path; the context
// window of a model comes from OpenCode's config and its model list when
// they declare one (see windows).
func (*Provider) NewStoreReader(path string) provider.StoreReader {
	return NewStore(path, paths.OS())
}

// NewStore is the reader of the database at path, with windows from the
// config env names.
func NewStore(path string, env paths.Env) *Store {
	return &Store{path: path, Windows: newWindows(env).size}
}

// Store reads OpenCode's database: each finished step (a `step-finish`
// part: the tokens and cost of one model response) becomes a meter event.
// It opens the database read-only and holds no transaction between reads
// (WAL: a reader never blocks OpenCode's writers, and a short one never
// holds back a checkpoint for long). Parts are read in rowid order from
// the last one read, which is the checkpoint.
type Store struct {
	path    string
	db      *sql.DB
	last    int64 // rowid of the newest step read
	Windows func(model string) int64
}

// batch bounds one query; Read loops until it has caught up.
const batch = 2000

// Read emits a meter for every step finished since the last Read.
func (s *Store) Read(emit func(*event.Event)) error {
	if s.db == nil {
		if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
			return nil // OpenCode has not run yet
		}
		u := url.URL{Scheme: "file", Path: s.path, RawQuery: "mode=ro&_pragma=busy_timeout(2000)&_pragma=query_only(1)"}
		db, err := sql.Open(Driver, u.String())
		if err != nil {
			return err
		}
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(time.Second) // let go of the file between reads
		s.db = db
	}
	for {
		n, err := s.read(emit)
		if err != nil || n < batch {
			return err
		}
	}
}

// stepQuery: the steps after a rowid, each with its message (model) and
// session (the parent a sub-agent's session belongs to, and the cost of
// the whole tree so far: OpenCode counts it per session).
const stepQuery = `SELECT p.rowid, p.session_id, p.time_created, p.data, m.data, coalesce(s.parent_id, ''),
  (SELECT coalesce(sum(t.cost), 0) FROM session t WHERE t.id = coalesce(s.parent_id, s.id) OR t.parent_id = coalesce(s.parent_id, s.id))
FROM part p JOIN message m ON m.id = p.message_id JOIN session s ON s.id = p.session_id
WHERE p.rowid > ? AND json_extract(p.data, '$.type') = 'step-finish'
ORDER BY p.rowid LIMIT ?`

func (s *Store) read(emit func(*event.Event)) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := s.db.QueryContext(ctx, stepQuery, s.last, batch)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return 0, nil // OpenCode is creating the database: not ready yet
		}
		return 0, fmt.Errorf("%s: %w", s.path, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var r stepRow
		if err := rows.Scan(&r.rowid, &r.session, &r.created, &r.part, &r.message, &r.parent, &r.cost); err != nil {
			return n, fmt.Errorf("%s: %w", s.path, err)
		}
		n++
		s.last = r.rowid
		if e, ok := s.meter(&r); ok {
			emit(&e)
		}
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("%s: %w", s.path, err)
	}
	return n, nil
}

// stepRow is one step as the query returns it.
type stepRow struct {
	rowid, created  int64
	session, parent string
	part, message   []byte
	cost            float64
}

// meter is a step's meter event; ok is false for a row that is not one
// (a part whose JSON does not read).
func (s *Store) meter(r *stepRow) (event.Event, bool) {
	part, ok := decode(r.part)
	if !ok {
		return event.Event{}, false
	}
	msg, _ := decode(r.message)
	tok := obj(part["tokens"])
	cache := obj(tok["cache"])
	e := event.New(event.Meter, time.UnixMilli(r.created), ID, r.session)
	e.Src = event.SrcLog
	e.ID = event.MakeID(event.SrcLog, ID, "step", strconv.FormatInt(r.rowid, 10), r.session, strconv.FormatInt(r.created, 10))
	e.Transcript = s.path
	if r.parent != "" {
		e.Session, e.Sub = r.parent, r.session
	}
	if p, m := str(msg["providerID"]), str(msg["modelID"]); m != "" {
		e.Model = strings.TrimPrefix(p+"/"+m, "/")
	}
	e.Tokens = &event.Tokens{In: num(tok["input"]), Out: num(tok["output"]) + num(tok["reasoning"]),
		CacheRead: num(cache["read"]), CacheWrite: num(cache["write"])}
	if e.Sub == "" {
		// The context in use is the step's whole count, as OpenCode's
		// sidebar shows it ("8,163 tokens · 6% used").
		used := num(tok["total"])
		if used == 0 {
			used = e.Tokens.Total()
		}
		e.Context = &event.Context{Used: used}
		if s.Windows != nil {
			if size := s.Windows(e.Model); size > 0 {
				e.Context.Size = size
				left := leftPct(used, size)
				e.Context.LeftPct = &left
			}
		}
	}
	cost := r.cost
	e.CostUSD = &cost
	return e, true
}

func leftPct(used, size int64) int {
	u := (used*100 + size/2) / size
	return int(100 - min(100, max(0, u)))
}

func decode(b []byte) (map[string]any, bool) {
	v, err := jsonscan.Decode(b)
	m, ok := v.(map[string]any)
	return m, err == nil && ok
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func str(v any) string         { s, _ := v.(string); return s }
func num(v any) int64 {
	f, _ := v.(float64)
	if f < 0 || f > 1e15 {
		return 0
	}
	return int64(f)
}

// Watch: the database and its write-ahead log; never the -shm index,
// which every read (this one's too) writes.
func (s *Store) Watch() []string { return []string{s.path, s.path + "-wal"} }

// Close lets go of the database.
func (s *Store) Close() error {
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}

// checkpoint is what Checkpoint saves: the newest step read.
type checkpoint struct {
	V     int   `json:"v"`
	RowID int64 `json:"rowid"`
}

// Checkpoint saves the rowid of the newest step read.
func (s *Store) Checkpoint() ([]byte, error) { return json.Marshal(checkpoint{1, s.last}) }

// Restore goes on after a saved rowid.
func (s *Store) Restore(b []byte) error {
	var c checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	if c.V != 1 || c.RowID < 0 {
		return fmt.Errorf("opencode store checkpoint: version %d", c.V)
	}
	s.last = c.RowID
	return nil
}
