//go:build e2e

package e2e

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/providers/opencode"
	"github.com/agwatch/ag/t/fakeapi/chat"
	_ "modernc.org/sqlite" // to show the steps' rowids
)

// TestOpenCodeUndo: /undo takes the last turn back, and OpenCode deletes
// its rows from opencode.db when the next prompt is sent. SQLite gives new
// rows the rowids after the largest left, which are those just deleted:
// the next turn's step must still become a meter.
func TestOpenCodeUndo(t *testing.T) {
	t.Parallel()
	bin := Install(t, OpenCode)
	h := New(t)
	api := h.FakeChat(chat.Options{})
	h.OpenCodeConfig(api)
	pl := h.StartPipeline([]string{"ag-tail", "--follow"})
	tm := h.StartTmux()
	pane := h.StartOpenCode(tm, "opencode", bin, 0)
	meter := func(what string) event.Event {
		t.Helper()
		m := pl.Out.WaitFor(t, what, 60*time.Second, func(e *event.Event) bool {
			return e.Kind == event.Meter && e.Agent == opencode.ID
		})
		t.Logf("meter %s: %s", what, event.Marshal(&m))
		return m
	}
	db := filepath.Join(h.Home, ".local", "share", "opencode", "opencode.db")
	// steps lists the parts, to show the rowids taken again.
	steps := func() string {
		d, err := sql.Open(opencode.Driver, "file:"+db+"?mode=ro")
		if err != nil {
			return err.Error()
		}
		defer d.Close()
		rows, err := d.Query(`SELECT rowid, time_created || ' ' || json_extract(data, '$.type') || ' ' || id FROM part ORDER BY rowid`)
		if err != nil {
			return err.Error()
		}
		defer rows.Close()
		var s []string
		for rows.Next() {
			var id int64
			var what string
			if err := rows.Scan(&id, &what); err != nil {
				return err.Error()
			}
			s = append(s, fmt.Sprint(id, " ", what))
		}
		return strings.Join(s, "\n")
	}

	pane.Type("first turn SLOW:1s")
	pane.WaitText(60*time.Second, "FAKE-REPLY: first turn")
	first := meter("for the first turn")
	pane.Type("second turn")
	pane.WaitText(60*time.Second, "FAKE-REPLY: second turn")
	second := meter("for the second turn")
	t.Logf("parts before /undo (rowid, time, type, id):\n%s", steps())

	pane.Type("/undo")
	pane.WaitText(30*time.Second, "second turn")
	time.Sleep(time.Second)
	t.Logf("after /undo:\n%s", lastLines(pane.Capture(), 12))
	pane.Keys("C-u") // the prompt /undo put back
	time.Sleep(500 * time.Millisecond)
	pane.Type("third turn")
	pane.WaitText(60*time.Second, "FAKE-REPLY: third turn")
	third := meter("for the turn after /undo")
	t.Logf("parts after (the new turn's in the rowids of the one taken back):\n%s", steps())
	if third.Session != first.Session || third.ID == second.ID || !third.T.After(second.T.Time) {
		t.Errorf("the meter after /undo: session %s id %s at %s; want %s, a new id, after %s", third.Session, third.ID, third.T, first.Session, second.T)
	}
}
