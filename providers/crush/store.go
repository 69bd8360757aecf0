package crush

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/crush/crushhook"
	"github.com/agwatch/ag/providers/internal/toolargs"
	"github.com/agwatch/ag/providers/provider"
)

var (
	_ provider.Stores       = (*Provider)(nil)
	_ provider.StoreReader  = (*Store)(nil)
	_ provider.Checkpointer = (*Store)(nil)
)

// Driver is the database/sql driver the store is read through; ag-tail
// links it (modernc.org/sqlite), other programs never pay for it.
const Driver = "sqlite"

// StorePaths: Crush keeps each project's sessions in that project's data
// folder (.crush/crush.db unless its data_directory says otherwise), and
// lists the projects it ran in, with their data folders, in
// projects.json in its global data folder.
func (*Provider) StorePaths(env provider.Env) []string {
	b, err := os.ReadFile(filepath.Join(DataDir(env), "projects.json"))
	if err != nil {
		return nil
	}
	var list struct {
		Projects []struct {
			Path    string `json:"path"`
			DataDir string `json:"data_dir"`
		} `json:"projects"`
	}
	if json.Unmarshal(b, &list) != nil {
		return nil
	}
	var out []string
	for _, p := range list.Projects {
		dir := p.DataDir
		if dir == "" {
			dir = ".crush"
		}
		if !filepath.IsAbs(dir) {
			if !filepath.IsAbs(p.Path) {
				continue
			}
			dir = filepath.Join(p.Path, dir)
		}
		out = append(out, filepath.Join(dir, "crush.db"))
	}
	return out
}

// NewStoreReader reads the store at path.
func (*Provider) NewStoreReader(path string) provider.StoreReader { return NewStore(path) }

// Store reads one project's crush.db (src log). Crush's schema (its
// migrations, read from its source): sessions (id, parent_session_id,
// title, message_count, prompt_tokens, completion_tokens, cost,
// updated_at, created_at, …) and messages (id, session_id, role, parts,
// model, created_at, updated_at, finished_at, …); parts is a JSON list of
// {"type", "data"}: text, reasoning, tool_call {id, name, input, finished},
// tool_result {tool_call_id, name, content, is_error}, finish {reason,
// time, message}.
//
//	a user message             turn.start
//	an assistant's tool_call   tool.start
//	a tool message's result    tool.end ("User denied permission": denied)
//	an assistant's finish      end_turn (max_tokens, …): turn.end;
//	                           canceled: interrupt; error: turn.fail;
//	                           tool_use: the turn goes on
//	a session's tokens changed a meter: prompt_tokens (the last response's
//	                           input, cache reads included) and
//	                           completion_tokens, the session's cost
//
// The sessions table holds no flag that says a session is at work: a
// turn is open from its user message to its last assistant message's
// finish. A sub-agent's session (parent_session_id set) is not read: its
// cost is added to its parent's.
//
// Every read lists the sessions (a small table) and reads the messages of
// those whose row changed and of those with a turn open, from the oldest
// message not yet done. It opens the database read-only and holds no
// transaction between reads.
type Store struct {
	path  string
	cwd   string
	db    *sql.DB
	sess  map[string]*sessSeen
	msgs  map[string]*msgSeen
	order []string // message ids, oldest first, for checkpoints
}

// sessSeen is what was read of one session.
type sessSeen struct {
	Sig   string `json:"sig"`             // its row as last read
	Tok   string `json:"tok,omitempty"`   // its tokens and cost as last read
	Open  bool   `json:"open,omitempty"`  // a turn started and not ended
	Since int64  `json:"since,omitempty"` // messages created before are done
	Model string `json:"model,omitempty"`
}

// msgSeen is what was emitted for one message.
type msgSeen struct {
	Sess  string          `json:"sess"`
	Start bool            `json:"s,omitempty"`
	End   bool            `json:"e,omitempty"`
	Calls map[string]bool `json:"c,omitempty"` // tool_call id → started
	Res   map[string]bool `json:"r,omitempty"` // tool_call id → ended
}

// NewStore is the reader of the database at path. A database in a
// .crush folder is the project's above it: its events' folder.
func NewStore(path string) *Store {
	s := &Store{path: path, sess: map[string]*sessSeen{}, msgs: map[string]*msgSeen{}}
	if d := filepath.Dir(path); filepath.Base(d) == ".crush" {
		s.cwd = filepath.Dir(d)
	}
	return s
}

// Watch: the database and its write-ahead log.
func (s *Store) Watch() []string { return []string{s.path, s.path + "-wal"} }

// Close releases the database.
func (s *Store) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

type sessRow struct {
	id, parent                string
	count, prompt, completion int64
	cost                      float64
	updated, created          int64
}

// Read emits what changed since the last Read.
func (s *Store) Read(emit func(*event.Event)) error {
	if s.db == nil {
		if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
			return nil // Crush has not run in this project yet
		}
		u := url.URL{Scheme: "file", Path: s.path, RawQuery: "mode=ro&_pragma=busy_timeout(2000)&_pragma=query_only(1)"}
		db, err := sql.Open(Driver, u.String())
		if err != nil {
			return err
		}
		db.SetMaxOpenConns(1)
		db.SetConnMaxIdleTime(time.Second)
		s.db = db
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := s.db.QueryContext(ctx, `SELECT id, coalesce(parent_session_id, ''), message_count, prompt_tokens,
		completion_tokens, cost, updated_at, created_at FROM sessions ORDER BY created_at, id`)
	if err != nil {
		return err
	}
	var all []sessRow
	for rows.Next() {
		var r sessRow
		if err := rows.Scan(&r.id, &r.parent, &r.count, &r.prompt, &r.completion, &r.cost, &r.updated, &r.created); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range all {
		if r.parent != "" {
			continue
		}
		// updated_at has whole seconds once a trigger rewrote it: the
		// tokens and cost tell two updates in one second apart.
		sig := strconv.FormatInt(r.count, 10) + "/" + strconv.FormatInt(r.updated, 10) + "/" +
			strconv.FormatInt(r.prompt, 10) + "/" + strconv.FormatInt(r.completion, 10) + "/" + strconv.FormatFloat(r.cost, 'g', -1, 64)
		ss := s.sess[r.id]
		if ss == nil {
			ss = &sessSeen{}
			s.sess[r.id] = ss
		}
		if ss.Sig == sig && !ss.Open {
			continue
		}
		if err := s.messages(ctx, r.id, ss, emit); err != nil {
			return err
		}
		ss.Sig = sig
		if tok := strconv.FormatInt(r.prompt, 10) + "/" + strconv.FormatInt(r.completion, 10) + "/" + strconv.FormatFloat(r.cost, 'g', -1, 64); tok != ss.Tok {
			if r.prompt > 0 || r.completion > 0 || r.cost > 0 {
				s.meter(r, ss, emit)
			}
			ss.Tok = tok
		}
	}
	return nil
}

// meter is a session's last response, as its row holds it.
func (s *Store) meter(r sessRow, ss *sessSeen, emit func(*event.Event)) {
	e := s.ev(event.Meter, msTime(r.updated), r.id, r.id, strconv.FormatInt(r.updated, 10),
		strconv.FormatInt(r.prompt, 10), strconv.FormatInt(r.completion, 10))
	e.Model = ss.Model
	e.Tokens = &event.Tokens{In: r.prompt, Out: r.completion}
	e.Context = &event.Context{Used: r.prompt + r.completion}
	cost := r.cost
	e.CostUSD = &cost
	emit(&e)
}

// part is one element of a message's parts.
type part struct {
	Type string `json:"type"`
	Data struct {
		Text       string `json:"text"`
		ID         string `json:"id"`
		Name       string `json:"name"`
		Input      string `json:"input"`
		ToolCallID string `json:"tool_call_id"`
		Content    string `json:"content"`
		IsError    bool   `json:"is_error"`
		Reason     string `json:"reason"`
		Time       int64  `json:"time"`
		Message    string `json:"message"`
	} `json:"data"`
}

// DeniedText is the result Crush records for a call the user denied.
const DeniedText = "User denied permission"

func (s *Store) messages(ctx context.Context, session string, ss *sessSeen, emit func(*event.Event)) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, role, parts, coalesce(model, ''), created_at FROM messages
		WHERE session_id = ? AND created_at >= ? ORDER BY created_at, rowid`, session, ss.Since)
	if err != nil {
		return err
	}
	defer rows.Close()
	since, settled := ss.Since, true
	for rows.Next() {
		var id, role, raw, model string
		var created int64
		if err := rows.Scan(&id, &role, &raw, &model, &created); err != nil {
			return err
		}
		var parts []part
		json.Unmarshal([]byte(raw), &parts) // a message half written reads as what it holds
		done := s.message(session, id, role, model, created, parts, ss, emit)
		if settled && done {
			since = created
		} else {
			settled = false
		}
	}
	ss.Since = since
	return rows.Err()
}

// message emits what one message holds that was not emitted; done says
// nothing more will come of it.
func (s *Store) message(session, id, role, model string, created int64, parts []part, ss *sessSeen, emit func(*event.Event)) bool {
	ms := s.msgs[id]
	if ms == nil {
		ms = &msgSeen{Sess: session}
		s.msgs[id] = ms
		s.order = append(s.order, id)
	}
	t := msTime(created)
	switch role {
	case "user":
		if !ms.Start {
			ms.Start = true
			e := s.ev(event.TurnStart, t, session, id)
			e.Text = event.Clamp(texts(parts), toolargs.MaxText)
			emit(&e)
			ss.Open = true
		}
		return true
	case "tool":
		for _, p := range parts {
			if p.Type != "tool_result" || p.Data.ToolCallID == "" || ms.Res[p.Data.ToolCallID] {
				continue
			}
			if ms.Res == nil {
				ms.Res = map[string]bool{}
			}
			ms.Res[p.Data.ToolCallID] = true
			e := s.ev(event.ToolEnd, t, session, p.Data.ToolCallID, "end")
			e.Tool, e.ToolID = p.Data.Name, p.Data.ToolCallID
			switch {
			case p.Data.IsError && strings.HasPrefix(p.Data.Content, DeniedText):
				e.Reason = "denied"
			case p.Data.IsError:
				e.Reason = "error"
			}
			emit(&e)
		}
		return true
	case "assistant":
		if model != "" {
			ss.Model = model
		}
		for _, p := range parts {
			switch {
			case p.Type == "tool_call" && p.Data.ID != "" && !ms.Calls[p.Data.ID]:
				if ms.Calls == nil {
					ms.Calls = map[string]bool{}
				}
				ms.Calls[p.Data.ID] = true
				e := s.ev(event.ToolStart, t, session, p.Data.ID)
				e.Tool, e.ToolID = p.Data.Name, p.Data.ID
				e.Text = crushhook.Dialect().Summary(p.Data.Name, []byte(p.Data.Input))
				emit(&e)
			case p.Type == "finish" && !ms.End:
				ms.End = true
				at := t
				if p.Data.Time > 0 {
					at = secOrMs(p.Data.Time)
				}
				switch p.Data.Reason {
				case "tool_use":
					// The calls' results come next: the turn goes on.
				case "canceled":
					if ss.Open {
						e := s.ev(event.Interrupt, at, session, id)
						e.Reason = "canceled"
						emit(&e)
					}
					ss.Open = false
				case "error":
					if ss.Open {
						e := s.ev(event.TurnFail, at, session, id)
						e.Reason, e.Text = "error", event.Clamp(p.Data.Message, toolargs.MaxText)
						emit(&e)
					}
					ss.Open = false
				default: // end_turn, max_tokens, content_filter, unknown
					if ss.Open {
						e := s.ev(event.TurnEnd, at, session, id)
						e.Text = event.Clamp(texts(parts), toolargs.MaxText)
						if p.Data.Reason != "end_turn" {
							e.Reason = p.Data.Reason
						}
						emit(&e)
					}
					ss.Open = false
				}
			}
		}
		return ms.End
	}
	return true
}

func texts(parts []part) string {
	var out []string
	for _, p := range parts {
		if p.Type == "text" && strings.TrimSpace(p.Data.Text) != "" {
			out = append(out, p.Data.Text)
		}
	}
	return strings.Join(out, "\n")
}

func (s *Store) ev(kind string, t time.Time, session string, parts ...string) event.Event {
	e := event.New(kind, t, ID, session)
	e.Src = event.SrcLog
	e.Cwd = s.cwd
	e.ID = event.MakeID(append([]string{event.SrcLog, ID, session, kind}, parts...)...)
	return e
}

// msTime is a time Crush stores in milliseconds; an update trigger
// rewrites updated_at in seconds, which secOrMs tells apart.
func msTime(v int64) time.Time { return secOrMs(v) }

func secOrMs(v int64) time.Time {
	if v < 1e11 {
		return time.Unix(v, 0).UTC()
	}
	return time.UnixMilli(v).UTC()
}
