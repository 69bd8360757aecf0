// Package state reads and writes ag-fold's state file: the current state of
// every session, so prompt segments and status lines never scan transcripts.
//
// The file is one JSON object: {"v":1,"t":"…","sessions":[<state event>, …]},
// each session a whole state event of the protocol. It is replaced atomically
// (temp file + rename), so a reader sees the old file or the new one.
package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agwatch/ag/filters/event"
	"github.com/agwatch/ag/filters/glance"
)

// Write replaces the state file at path with states.
func Write(path string, now time.Time, states []event.Event) error {
	var b bytes.Buffer
	b.WriteString(`{"v":1,"t":"`)
	b.WriteString(now.UTC().Format(event.Layout))
	b.WriteString(`","sessions":[`)
	buf := make([]byte, 0, 1024)
	for i := range states {
		if i > 0 {
			b.WriteString(",\n")
		} else {
			b.WriteString("\n")
		}
		buf = event.AppendJSON(buf[:0], &states[i])
		b.Write(buf[:len(buf)-1])
	}
	b.WriteString("\n]}\n")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".state-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// ErrNoFile means there is no state file yet (ag-fold has not run).
var ErrNoFile = errors.New("no state file")

// Read returns every session state in the file at path.
func Read(path string) ([]event.Event, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoFile
	}
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse reads the file's contents: the sessions array holds one state
// event per line, which is how Write lays it out.
func Parse(b []byte) ([]event.Event, error) {
	start := bytes.Index(b, []byte(`"sessions":[`))
	if start < 0 {
		return nil, fmt.Errorf("state file: no sessions array")
	}
	var out []event.Event
	for n, line := range bytes.Split(b[start:], []byte("\n"))[1:] {
		line = bytes.TrimSuffix(bytes.TrimSpace(line), []byte(","))
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e event.Event
		if err := event.Decode(line, &e); err != nil {
			return out, fmt.Errorf("state file: session %d: %v", n+1, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// ForPane returns the state of the session in tmux pane pane, if any; when
// several sessions name the pane, a live one wins over a gone one (an
// agent killed and started again in its pane may be found dead after the
// new one started; Claude's --fork-session leaves the forked session gone
// in the fork's pane at the fork's first moment), then the one the pane
// shows (glance.Shows: the newest, or for an agent whose process hosts
// many sessions — many says which, nil for none — the worst of them).
func ForPane(states []event.Event, pane string) (event.Event, bool) {
	return ForPaneOf(states, pane, nil)
}

// ForPaneOf is ForPane knowing which agents host many sessions a process.
func ForPaneOf(states []event.Event, pane string, many func(agent string) bool) (event.Event, bool) {
	var best event.Event
	found := false
	for _, s := range states {
		if s.Pane != pane {
			continue
		}
		gone, bestGone := s.Status == event.StatusGone, best.Status == event.StatusGone
		if !found || bestGone && !gone || gone == bestGone && glance.Shows(&s, &best, many) {
			best, found = s, true
		}
	}
	return best, found
}

// Local keeps the states of one host (is reports whether a state's host is
// it): a merged state file holds other hosts' sessions too, whose panes
// and pids mean nothing on this one.
func Local(states []event.Event, is func(host string) bool) []event.Event {
	out := states[:0:0]
	for _, s := range states {
		if is(s.Host) {
			out = append(out, s)
		}
	}
	return out
}
