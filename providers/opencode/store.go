package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/filters/paths"
	"github.com/agwatch/ag/providers/internal/storedb"
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
const Driver = storedb.Driver

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
	return NewFamilyStore(ID, path, newWindows(env).size)
}

// NewFamilyStore is the reader of a database of OpenCode's schema kept by
// agent (OpenCode, or a fork that kept it: Kilo's kilo.db), with windows
// from the function given (nil: none).
func NewFamilyStore(agent, path string, windows func(model string) int64) *Store {
	return &Store{agent: agent, path: path, Windows: windows}
}

// Store reads OpenCode's database: each finished step (a `step-finish`
// part: the tokens and cost of one model response) becomes a meter event.
// It opens the database read-only and holds no transaction between reads
// (WAL: a reader never blocks OpenCode's writers, and a short one never
// holds back a checkpoint for long). Parts are read in rowid order from
// the last one read, which is the checkpoint.
//
// SQLite gives a new row the rowid after the largest in the table, so
// rowids come again once the newest rows are deleted: OpenCode deletes a
// turn /undo took back when the next prompt is sent, and the next turn's
// parts take its rowids. Each read first looks at the row the cursor
// stands on; when it is gone or another part (VACUUM renumbers rows too),
// the steps made since the newest one read are found by their time.
type Store struct {
	agent   string // the id its events carry ("": OpenCode's)
	path    string
	db      *sql.DB
	last    int64  // rowid of the newest step read
	lastID  string // its part id ("" when not known)
	created int64  // the newest time_created read (ms; 0 when not known)
	Windows func(model string) int64
}

// batch bounds one query; Read loops until it has caught up.
const batch = 2000

// Read emits a meter for every step finished since the last Read.
func (s *Store) Read(emit func(*event.Event)) error {
	if s.db == nil {
		db, err := storedb.Open(s.path)
		if db == nil {
			return err // or OpenCode has not run yet
		}
		s.db = db
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.moved(ctx, emit); err != nil {
		return err
	}
	for {
		n, err := s.read(ctx, s.db, emit, stepQuery, s.last, batch)
		if err != nil || n < batch {
			return err
		}
	}
}

// stepCols: a step, with its message (model) and session (the parent a
// sub-agent's session belongs to, and the cost of the whole tree so far:
// OpenCode counts it per session).
const stepCols = `SELECT p.rowid, p.id, p.session_id, p.time_created, p.data, m.data, coalesce(s.parent_id, ''),
  (SELECT coalesce(sum(t.cost), 0) FROM session t WHERE t.id = coalesce(s.parent_id, s.id) OR t.parent_id = coalesce(s.parent_id, s.id))
FROM part p JOIN message m ON m.id = p.message_id JOIN session s ON s.id = p.session_id
WHERE json_extract(p.data, '$.type') = 'step-finish' AND `

// stepQuery: the steps after a rowid; sinceQuery: those made after a
// time, up to a rowid.
const (
	stepQuery  = stepCols + `p.rowid > ? ORDER BY p.rowid LIMIT ?`
	sinceQuery = stepCols + `p.time_created > ? AND p.rowid <= ? ORDER BY p.rowid`
)

// moved checks the row the cursor stands on. When it is gone or another
// part, the steps made since the newest one read are emitted wherever
// they are, and the cursor moves to the table's last row: one read
// transaction, so that no row comes between the two.
func (s *Store) moved(ctx context.Context, emit func(*event.Event)) error {
	if s.lastID == "" {
		return nil
	}
	var id string
	switch err := s.db.QueryRowContext(ctx, `SELECT id FROM part WHERE rowid = ?`, s.last).Scan(&id); {
	case err == nil && id == s.lastID:
		return nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return s.queryErr(err)
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return s.queryErr(err)
	}
	defer tx.Rollback()
	var top int64
	var topID string
	if err := tx.QueryRowContext(ctx, `SELECT rowid, id FROM part ORDER BY rowid DESC LIMIT 1`).Scan(&top, &topID); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return s.queryErr(err)
	}
	if s.created > 0 { // else (a checkpoint that did not say) only on from the top
		if _, err := s.read(ctx, tx, emit, sinceQuery, s.created, top); err != nil {
			return err
		}
	}
	s.last, s.lastID = top, topID
	return nil
}

func (s *Store) queryErr(err error) error {
	if strings.Contains(err.Error(), "no such table") {
		return nil // OpenCode is creating the database: not ready yet
	}
	return fmt.Errorf("%s: %w", s.path, err)
}

// querier is the database or a transaction on it.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// read runs a step query through q and emits its steps.
func (s *Store) read(ctx context.Context, q querier, emit func(*event.Event), query string, args ...any) (int, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, s.queryErr(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var r stepRow
		if err := rows.Scan(&r.rowid, &r.id, &r.session, &r.created, &r.part, &r.message, &r.parent, &r.cost); err != nil {
			return n, fmt.Errorf("%s: %w", s.path, err)
		}
		n++
		s.last, s.lastID, s.created = r.rowid, r.id, max(s.created, r.created)
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
	rowid, created      int64
	id, session, parent string
	part, message       []byte
	cost                float64
}

// id is the agent id the store's events carry.
func (s *Store) id() string {
	if s.agent == "" {
		return ID
	}
	return s.agent
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
	e := event.New(event.Meter, time.UnixMilli(r.created), s.id(), r.session)
	e.Src = event.SrcLog
	e.ID = event.MakeID(event.SrcLog, s.id(), "step", strconv.FormatInt(r.rowid, 10), r.session, strconv.FormatInt(r.created, 10))
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

// checkpoint is what Checkpoint saves: the newest step read, and the
// newest time read (id and created are absent from the checkpoints of
// earlier builds).
type checkpoint struct {
	V       int    `json:"v"`
	RowID   int64  `json:"rowid"`
	ID      string `json:"id,omitempty"`
	Created int64  `json:"created,omitempty"`
}

// Checkpoint saves the cursor.
func (s *Store) Checkpoint() ([]byte, error) {
	return json.Marshal(checkpoint{1, s.last, s.lastID, s.created})
}

// Restore goes on from a saved cursor.
func (s *Store) Restore(b []byte) error {
	var c checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	if c.V != 1 || c.RowID < 0 {
		return fmt.Errorf("%s store checkpoint: version %d", s.id(), c.V)
	}
	s.last, s.lastID, s.created = c.RowID, c.ID, c.Created
	return nil
}
