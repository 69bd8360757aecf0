package droid

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwatch/ag/filters/event"
)

// Totals reads a session's <id>.settings.json, which Droid rewrites whole
// as the session goes: its model and running token totals (tokenUsage),
// and the last call's (lastCallTokenUsage: what the context holds now).
// Each read that finds the totals grown emits one meter with the growth.
type Totals struct {
	path    string
	session string
	last    usage // the totals emitted so far
}

type usage struct {
	Input      int64 `json:"inputTokens"`
	Output     int64 `json:"outputTokens"`
	CacheWrite int64 `json:"cacheCreationTokens"`
	CacheRead  int64 `json:"cacheReadTokens"`
	Thinking   int64 `json:"thinkingTokens"`
}

// NewTotals starts a parser for the settings file at path.
func NewTotals(path string) *Totals {
	return &Totals{path: path, session: strings.TrimSuffix(filepath.Base(path), ".settings.json")}
}

// Reset forgets the totals emitted: the file is another session's.
func (t *Totals) Reset() { t.last = usage{} }

// Parse takes a line as the whole file (a one-line settings file).
func (t *Totals) Parse(line []byte, emit func(*event.Event)) error { return t.ParseWhole(line, emit) }

// ParseWhole reads the file as it is now (provider.WholeFileParser).
func (t *Totals) ParseWhole(data []byte, emit func(*event.Event)) error {
	var doc struct {
		Model    string `json:"model"`
		Tokens   *usage `json:"tokenUsage"`
		LastCall *usage `json:"lastCallTokenUsage"`
	}
	if err := lenient(json.Unmarshal(data, &doc)); err != nil {
		return fmt.Errorf("not a session's settings: %w", err)
	}
	u := doc.Tokens
	if u == nil || *u == t.last {
		return nil
	}
	d := usage{u.Input - t.last.Input, u.Output - t.last.Output, u.CacheWrite - t.last.CacheWrite, u.CacheRead - t.last.CacheRead, u.Thinking - t.last.Thinking}
	if d.Input < 0 || d.Output < 0 || d.CacheWrite < 0 || d.CacheRead < 0 || d.Thinking < 0 {
		d = *u // smaller totals: counted afresh (a rewind)
	}
	t.last = *u
	e := event.New(event.Meter, modTime(t.path), ID, t.session)
	e.Src = event.SrcLog
	e.Transcript = t.path
	e.ID = event.MakeID(event.SrcLog, ID, t.session, "totals", fmt.Sprint(u.Input, u.Output, u.CacheWrite, u.CacheRead, u.Thinking))
	e.Model = doc.Model
	e.Tokens = &event.Tokens{In: d.Input, Out: d.Output + d.Thinking, CacheRead: d.CacheRead, CacheWrite: d.CacheWrite}
	if lc := doc.LastCall; lc != nil {
		if used := lc.Input + lc.CacheRead + lc.CacheWrite; used > 0 {
			e.Context = &event.Context{Used: used}
		}
	}
	emit(&e)
	return nil
}

func modTime(path string) (t time.Time) {
	if fi, err := os.Stat(path); err == nil {
		return fi.ModTime()
	}
	return t
}

type totalsCheckpoint struct {
	V    int   `json:"v"`
	Last usage `json:"last"`
}

// Checkpoint saves the totals emitted (provider.Checkpointer).
func (t *Totals) Checkpoint() ([]byte, error) {
	return json.Marshal(totalsCheckpoint{V: checkpointV, Last: t.last})
}

// Restore puts a fresh parser where Checkpoint left one.
func (t *Totals) Restore(b []byte) error {
	var cp totalsCheckpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return err
	}
	if cp.V != checkpointV {
		return fmt.Errorf("checkpoint version %d, want %d", cp.V, checkpointV)
	}
	t.last = cp.Last
	return nil
}
