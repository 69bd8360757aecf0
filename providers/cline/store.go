package cline

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/jsonscan"
	"github.com/agwatch/ag/providers/cline/clinehook"
	"github.com/agwatch/ag/providers/internal/storedb"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

var _ provider.Checkpointer = (*Store)(nil)

// StorePaths: Cline's sessions database.
func (*Provider) StorePaths(env provider.Env) []string { return []string{DBPath(env)} }

// NewStoreReader reads the database at path.
func (*Provider) NewStoreReader(path string) provider.StoreReader { return NewStore(path) }

// NewStore is the reader of the sessions database at path.
func NewStore(path string) *Store { return &Store{path: path} }

// Store reads Cline's sessions database (db/sessions.db, table sessions:
// one row a session, rewritten at every change of its status, with the
// time of the change in updated_at). Cline sets a session "pending" while
// an approval dialog is up (its requestToolApproval, 3.0.65) and back to
// "running" once it is answered; nothing else is pending. So a row that
// turns pending is a wait for the session's call asked about, whose name
// and command are the last call in the messages file the row names
// (written before the dialog); a row that leaves pending is the wait's
// end. A call of switch_to_act_mode, asked about in plan mode, is the plan
// waiting for approval. The other statuses (running, idle, completed and
// failed, which do not end the session: a session restarts under the
// same id) are the hooks' to tell.
//
// It opens the database read-only, holds nothing between reads, and
// reads only the rows changed since the newest it saw (the checkpoint,
// with the sessions then pending).
type Store struct {
	path    string
	db      *sql.DB
	updated string            // the newest updated_at read
	pending map[string]string // sessions last read pending: the call asked about
}

// Read emits the waits begun and ended since the last Read.
func (s *Store) Read(emit func(*event.Event)) error {
	if s.db == nil {
		db, err := storedb.Open(s.path)
		if db == nil {
			return err // or Cline has not run yet
		}
		s.db = db
	}
	if s.pending == nil {
		s.pending = map[string]string{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := s.db.QueryContext(ctx, `SELECT session_id, status, updated_at, coalesce(messages_path, ''),
  coalesce(parent_session_id, ''), is_subagent, coalesce(agent_id, ''), cwd
FROM sessions WHERE updated_at > ? ORDER BY updated_at, session_id`, s.updated)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil // Cline is creating the database
		}
		return fmt.Errorf("%s: %w", s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.session, &r.status, &r.updated, &r.messages, &r.parent, &r.sub, &r.agent, &r.cwd); err != nil {
			return fmt.Errorf("%s: %w", s.path, err)
		}
		s.updated = max(s.updated, r.updated)
		s.row(&r, emit)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	return nil
}

type row struct {
	session, status, updated, messages, parent, agent, cwd string
	sub                                                    bool
}

func (s *Store) row(r *row, emit func(*event.Event)) {
	call, was := s.pending[r.session]
	now := r.status == "pending"
	var tool, id, text string
	if now {
		// Another call's dialog after this one's, both between two reads,
		// is another wait.
		tool, id, text = PendingCall(r.messages)
		if was && id == call {
			return
		}
		s.pending[r.session] = id
	} else {
		if !was {
			return
		}
		delete(s.pending, r.session)
	}
	at, err := time.Parse(time.RFC3339Nano, r.updated)
	if err != nil {
		return
	}
	kind := event.WaitEnd
	if now {
		kind = event.Wait
	}
	e := event.New(kind, at, ID, r.session)
	e.Src, e.Transcript, e.Cwd = event.SrcLog, r.messages, r.cwd
	if r.sub && r.parent != "" {
		e.Session, e.Sub = r.parent, r.session
	}
	e.ID = event.MakeID(event.SrcLog, ID, r.session, kind, r.updated, id)
	if now {
		e.Attention, e.Tool, e.ToolID, e.Text = event.AttnPermission, tool, id, text
		if tool == ToolSwitchToAct {
			e.Attention = event.AttnPlan
		}
	}
	emit(&e)
}

// ToolSwitchToAct is plan mode's call that asks to leave it and carry out
// the plan.
const ToolSwitchToAct = "switch_to_act_mode"

// PendingCall is the last call of the messages file at path that has no
// result yet: its tool, id and summary ("" when there is none, or the file
// cannot be read).
func PendingCall(path string) (tool, id, text string) {
	if path == "" {
		return "", "", ""
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > provider.MaxWholeFile {
		return "", "", ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", ""
	}
	var f struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(b, &f) != nil {
		return "", "", ""
	}
	var answered []string
	for i := len(f.Messages) - 1; i >= 0; i-- {
		var calls [][3]string
		jsonscan.Elements(f.Messages[i].Content, func(c []byte) error {
			switch toolargs.Field(c, "type") {
			case "tool_result":
				answered = append(answered, toolargs.Field(c, "tool_use_id"))
			case "tool_use":
				var input []byte
				jsonscan.Members(c, func(k string, v []byte) error {
					if k == "input" {
						input = v
					}
					return nil
				})
				calls = append(calls, [3]string{toolargs.Field(c, "name"), toolargs.Field(c, "id"), clinehook.ToolSummary(input)})
			}
			return nil
		})
		for j := len(calls) - 1; j >= 0; j-- {
			if !slices.Contains(answered, calls[j][1]) {
				return calls[j][0], calls[j][1], calls[j][2]
			}
		}
	}
	return "", "", ""
}

// Watch: the database and its write-ahead log.
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

// storeCheckpoint is what Checkpoint saves.
type storeCheckpoint struct {
	V       int               `json:"v"`
	Updated string            `json:"updated,omitempty"`
	Pending map[string]string `json:"pending,omitempty"`
}

// maxPending bounds the sessions a checkpoint names (only a crashed Cline
// leaves one pending for long).
const maxPending = 64

// Checkpoint saves the newest change read and the sessions pending then.
func (s *Store) Checkpoint() ([]byte, error) {
	c := storeCheckpoint{V: 1, Updated: s.updated, Pending: map[string]string{}}
	ids := slices.Sorted(maps.Keys(s.pending))
	if len(ids) > maxPending {
		ids = ids[len(ids)-maxPending:] // session ids start with their creation time
	}
	for _, id := range ids {
		c.Pending[id] = s.pending[id]
	}
	return json.Marshal(c)
}

// Restore goes on from a checkpoint.
func (s *Store) Restore(b []byte) error {
	var c storeCheckpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	if c.V != 1 {
		return fmt.Errorf("cline store checkpoint: version %d", c.V)
	}
	s.updated, s.pending = c.Updated, map[string]string{}
	for id, call := range c.Pending {
		s.pending[id] = call
	}
	return nil
}
